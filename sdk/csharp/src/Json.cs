using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Dauth
{
    /// <summary>The kind of a <see cref="JsonValue"/>.</summary>
    public enum JsonKind { Null, Bool, Number, String, Array, Object }

    /// <summary>
    /// A parsed JSON value. Numbers keep their literal text (<see cref="NumberText"/>), so a 19-digit
    /// slot id is never rounded through a double: callers read it as digits or as an exact integer.
    /// </summary>
    public sealed class JsonValue
    {
        public static readonly JsonValue Null = new JsonValue(JsonKind.Null, null, false, null, null);
        public static readonly JsonValue True = new JsonValue(JsonKind.Bool, null, true, null, null);
        public static readonly JsonValue False = new JsonValue(JsonKind.Bool, null, false, null, null);

        private readonly string text;
        private readonly bool boolean;
        private readonly List<JsonValue> items;
        private readonly List<KeyValuePair<string, JsonValue>> members;

        private JsonValue(JsonKind kind, string text, bool boolean, List<JsonValue> items,
            List<KeyValuePair<string, JsonValue>> members)
        {
            Kind = kind;
            this.text = text;
            this.boolean = boolean;
            this.items = items;
            this.members = members;
        }

        public JsonKind Kind { get; private set; }

        public static JsonValue FromString(string value)
        {
            if (value == null) throw new ArgumentNullException("value");
            return new JsonValue(JsonKind.String, value, false, null, null);
        }

        /// <summary>A number from its literal text, which must be a valid JSON number.</summary>
        public static JsonValue FromNumberText(string literal)
        {
            if (!JsonParser.IsNumberLiteral(literal)) throw new ArgumentException("not a JSON number: " + literal);
            return new JsonValue(JsonKind.Number, literal, false, null, null);
        }

        internal static JsonValue FromNumberTextUnchecked(string literal)
        {
            return new JsonValue(JsonKind.Number, literal, false, null, null);
        }

        public static JsonValue FromLong(long value)
        {
            return new JsonValue(JsonKind.Number, value.ToString(CultureInfo.InvariantCulture), false, null, null);
        }

        public static JsonValue FromBool(bool value) { return value ? True : False; }

        public static JsonValue NewArray(IEnumerable<JsonValue> values)
        {
            return new JsonValue(JsonKind.Array, null, false, new List<JsonValue>(values), null);
        }

        /// <summary>An object; a repeated name is refused (the parser refuses it too).</summary>
        public static JsonValue NewObject(IEnumerable<KeyValuePair<string, JsonValue>> values)
        {
            var list = new List<KeyValuePair<string, JsonValue>>();
            var seen = new HashSet<string>(StringComparer.Ordinal);
            foreach (var pair in values)
            {
                if (pair.Key == null || pair.Value == null) throw new ArgumentNullException("values");
                if (!seen.Add(pair.Key)) throw new ArgumentException("duplicate member: " + pair.Key);
                list.Add(pair);
            }
            return new JsonValue(JsonKind.Object, null, false, null, list);
        }

        public bool AsBool { get { Expect(JsonKind.Bool); return boolean; } }
        public string AsString { get { Expect(JsonKind.String); return text; } }
        /// <summary>The number exactly as written in the JSON text.</summary>
        public string NumberText { get { Expect(JsonKind.Number); return text; } }
        public IReadOnlyList<JsonValue> Items { get { Expect(JsonKind.Array); return items; } }
        public IReadOnlyList<KeyValuePair<string, JsonValue>> Members { get { Expect(JsonKind.Object); return members; } }

        /// <summary>The member named <paramref name="name"/>, or null when absent (or not an object).</summary>
        public JsonValue Get(string name)
        {
            if (Kind != JsonKind.Object) return null;
            foreach (var pair in members) if (pair.Key == name) return pair.Value;
            return null;
        }

        /// <summary>An integral number that fits a long (no fraction, no exponent), else an exception.</summary>
        public long AsLong
        {
            get
            {
                long value;
                if (!long.TryParse(NumberText, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value))
                    throw new FormatException("not an integer that fits 64 bits: " + text);
                return value;
            }
        }

        private void Expect(JsonKind kind)
        {
            if (Kind != kind) throw new InvalidOperationException("JSON value is " + Kind + ", not " + kind);
        }

        public override string ToString() { return JsonWriter.Write(this); }

        internal string RawText { get { return text; } }
    }

    /// <summary>
    /// A strict RFC 8259 parser: one value, no trailing commas, comments, NaN, leading zeros, lone
    /// surrogates, control characters in strings or repeated member names; nesting at most 64 deep.
    /// </summary>
    public sealed class JsonParser
    {
        private const int MaxDepth = 64;
        private readonly string s;
        private int i;

        private JsonParser(string text) { s = text; }

        public static JsonValue Parse(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            var parser = new JsonParser(text);
            parser.SkipSpace();
            var value = parser.ReadValue(0);
            parser.SkipSpace();
            if (parser.i != text.Length) throw parser.Error("text after the JSON value");
            return value;
        }

        internal static bool IsNumberLiteral(string literal)
        {
            if (string.IsNullOrEmpty(literal)) return false;
            var parser = new JsonParser(literal);
            try
            {
                parser.ReadNumber();
                return parser.i == literal.Length;
            }
            catch (FormatException)
            {
                return false;
            }
        }

        private FormatException Error(string what)
        {
            return new FormatException("invalid JSON at offset " + i + ": " + what);
        }

        private void SkipSpace()
        {
            while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
        }

        private JsonValue ReadValue(int depth)
        {
            if (i >= s.Length) throw Error("unexpected end");
            char c = s[i];
            switch (c)
            {
                case '{': return ReadObject(depth + 1);
                case '[': return ReadArray(depth + 1);
                case '"': return JsonValue.FromString(ReadString());
                case 't': Literal("true"); return JsonValue.True;
                case 'f': Literal("false"); return JsonValue.False;
                case 'n': Literal("null"); return JsonValue.Null;
                default:
                    if (c == '-' || (c >= '0' && c <= '9'))
                    {
                        int start = i;
                        ReadNumber();
                        return JsonValue.FromNumberTextUnchecked(s.Substring(start, i - start));
                    }
                    throw Error("unexpected character '" + c + "'");
            }
        }

        private void Literal(string word)
        {
            if (string.CompareOrdinal(s, i, word, 0, word.Length) != 0) throw Error("expected " + word);
            i += word.Length;
        }

        private void ReadNumber()
        {
            if (i < s.Length && s[i] == '-') i++;
            if (i >= s.Length) throw Error("unexpected end in a number");
            if (s[i] == '0') i++;
            else if (s[i] >= '1' && s[i] <= '9') Digits();
            else throw Error("expected a digit");
            if (i < s.Length && s[i] == '.') { i++; Digits(); }
            if (i < s.Length && (s[i] == 'e' || s[i] == 'E'))
            {
                i++;
                if (i < s.Length && (s[i] == '+' || s[i] == '-')) i++;
                Digits();
            }
        }

        private void Digits()
        {
            int start = i;
            while (i < s.Length && s[i] >= '0' && s[i] <= '9') i++;
            if (i == start) throw Error("expected a digit");
        }

        private string ReadString()
        {
            i++; // opening quote
            var sb = new StringBuilder();
            while (true)
            {
                if (i >= s.Length) throw Error("unterminated string");
                char c = s[i++];
                if (c == '"') return sb.ToString();
                if (c < 0x20) throw Error("control character in a string");
                if (char.IsSurrogate(c))
                {
                    if (char.IsHighSurrogate(c) && i < s.Length && char.IsLowSurrogate(s[i])) { sb.Append(c).Append(s[i++]); continue; }
                    throw Error("lone surrogate in a string");
                }
                if (c != '\\') { sb.Append(c); continue; }
                if (i >= s.Length) throw Error("unterminated escape");
                char e = s[i++];
                switch (e)
                {
                    case '"': sb.Append('"'); break;
                    case '\\': sb.Append('\\'); break;
                    case '/': sb.Append('/'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'n': sb.Append('\n'); break;
                    case 'r': sb.Append('\r'); break;
                    case 't': sb.Append('\t'); break;
                    case 'u':
                        char unit = ReadHex4();
                        if (char.IsHighSurrogate(unit))
                        {
                            if (i + 1 < s.Length && s[i] == '\\' && s[i + 1] == 'u')
                            {
                                i += 2;
                                char low = ReadHex4();
                                if (!char.IsLowSurrogate(low)) throw Error("lone surrogate escape");
                                sb.Append(unit).Append(low);
                                break;
                            }
                            throw Error("lone surrogate escape");
                        }
                        if (char.IsLowSurrogate(unit)) throw Error("lone surrogate escape");
                        sb.Append(unit);
                        break;
                    default: throw Error("bad escape \\" + e);
                }
            }
        }

        private char ReadHex4()
        {
            if (i + 4 > s.Length) throw Error("short \\u escape");
            int value = 0;
            for (int k = 0; k < 4; k++)
            {
                char h = s[i++];
                int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (d < 0) throw Error("bad hex digit in \\u escape");
                value = value * 16 + d;
            }
            return (char)value;
        }

        private JsonValue ReadArray(int depth)
        {
            if (depth > MaxDepth) throw Error("nested too deeply");
            i++;
            var items = new List<JsonValue>();
            SkipSpace();
            if (i < s.Length && s[i] == ']') { i++; return JsonValue.NewArray(items); }
            while (true)
            {
                SkipSpace();
                items.Add(ReadValue(depth));
                SkipSpace();
                if (i >= s.Length) throw Error("unterminated array");
                char c = s[i++];
                if (c == ']') return JsonValue.NewArray(items);
                if (c != ',') throw Error("expected ',' or ']'");
            }
        }

        private JsonValue ReadObject(int depth)
        {
            if (depth > MaxDepth) throw Error("nested too deeply");
            i++;
            var members = new List<KeyValuePair<string, JsonValue>>();
            var seen = new HashSet<string>(StringComparer.Ordinal);
            SkipSpace();
            if (i < s.Length && s[i] == '}') { i++; return JsonValue.NewObject(members); }
            while (true)
            {
                SkipSpace();
                if (i >= s.Length || s[i] != '"') throw Error("expected a member name");
                string name = ReadString();
                if (!seen.Add(name)) throw Error("repeated member name \"" + name + "\"");
                SkipSpace();
                if (i >= s.Length || s[i] != ':') throw Error("expected ':'");
                i++;
                SkipSpace();
                members.Add(new KeyValuePair<string, JsonValue>(name, ReadValue(depth)));
                SkipSpace();
                if (i >= s.Length) throw Error("unterminated object");
                char c = s[i++];
                if (c == '}') return JsonValue.NewObject(members);
                if (c != ',') throw Error("expected ',' or '}'");
            }
        }
    }

    /// <summary>Writes compact JSON; strings are escaped so that any parser reads them back unchanged.</summary>
    public static class JsonWriter
    {
        public static string Write(JsonValue value)
        {
            var sb = new StringBuilder();
            Append(sb, value);
            return sb.ToString();
        }

        private static void Append(StringBuilder sb, JsonValue value)
        {
            switch (value.Kind)
            {
                case JsonKind.Null: sb.Append("null"); break;
                case JsonKind.Bool: sb.Append(value.AsBool ? "true" : "false"); break;
                case JsonKind.Number: sb.Append(value.NumberText); break;
                case JsonKind.String: AppendString(sb, value.AsString); break;
                case JsonKind.Array:
                    sb.Append('[');
                    for (int k = 0; k < value.Items.Count; k++)
                    {
                        if (k > 0) sb.Append(',');
                        Append(sb, value.Items[k]);
                    }
                    sb.Append(']');
                    break;
                default:
                    sb.Append('{');
                    bool first = true;
                    foreach (var pair in value.Members)
                    {
                        if (!first) sb.Append(',');
                        first = false;
                        AppendString(sb, pair.Key);
                        sb.Append(':');
                        Append(sb, pair.Value);
                    }
                    sb.Append('}');
                    break;
            }
        }

        private static void AppendString(StringBuilder sb, string text)
        {
            sb.Append('"');
            for (int k = 0; k < text.Length; k++)
            {
                char c = text[k];
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    default:
                        // Control characters, and lone surrogates (which UTF-8 cannot carry), as \u escapes.
                        bool loneSurrogate = char.IsHighSurrogate(c) ? !(k + 1 < text.Length && char.IsLowSurrogate(text[k + 1]))
                            : char.IsLowSurrogate(c) && !(k > 0 && char.IsHighSurrogate(text[k - 1]));
                        if (c < 0x20 || loneSurrogate || c == '\u2028' || c == '\u2029')
                            sb.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }
    }

    /// <summary>Builds a JSON object member by member, skipping nulls for optional fields.</summary>
    public sealed class JsonObjectBuilder
    {
        private readonly List<KeyValuePair<string, JsonValue>> members = new List<KeyValuePair<string, JsonValue>>();

        public JsonObjectBuilder Add(string name, JsonValue value)
        {
            members.Add(new KeyValuePair<string, JsonValue>(name, value));
            return this;
        }

        public JsonObjectBuilder Add(string name, string value) { return Add(name, JsonValue.FromString(value)); }

        /// <summary>Adds the member only when <paramref name="value"/> is not null.</summary>
        public JsonObjectBuilder AddOptional(string name, string value)
        {
            return value == null ? this : Add(name, value);
        }

        public JsonValue Build() { return JsonValue.NewObject(members); }

        public override string ToString() { return JsonWriter.Write(Build()); }
    }
}
