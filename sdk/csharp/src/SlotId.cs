using System;
using System.Globalization;
using System.Numerics;

namespace Dauth
{
    /// <summary>
    /// A slot id: up to 19 decimal digits (a uint256 on chain), kept as the exact digits the service
    /// wrote, whether it sent a JSON number or a decimal string. Never converted through double.
    /// </summary>
    public sealed class SlotId : IEquatable<SlotId>
    {
        private SlotId(string digits) { Digits = digits; }

        /// <summary>The decimal digits, without leading zeros.</summary>
        public string Digits { get; private set; }

        /// <summary>The id from its decimal digits ("1234567890123456789"); a fraction, sign or exponent is refused.</summary>
        public static SlotId Parse(string digits)
        {
            if (!IsCanonicalDigits(digits)) throw new FormatException("a slot id is decimal digits without leading zeros: " + digits);
            return new SlotId(digits);
        }

        /// <summary>
        /// The id from a JSON value: an integer literal (its text, not a double) or a decimal string.
        /// A fraction or an exponent is refused, since the digits may already be lost.
        /// </summary>
        public static SlotId FromJson(JsonValue value)
        {
            if (value == null) throw new FormatException("slot id missing");
            if (value.Kind == JsonKind.Number) return Parse(value.NumberText);
            if (value.Kind == JsonKind.String) return Parse(value.AsString);
            throw new FormatException("a slot id is a number or a decimal string, not " + value.Kind);
        }

        public BigInteger ToBigInteger() { return BigInteger.Parse(Digits, CultureInfo.InvariantCulture); }

        /// <summary>The id as a ulong (every 19-digit id fits); an OverflowException beyond 2^64 - 1.</summary>
        public ulong ToUInt64() { return ulong.Parse(Digits, NumberStyles.None, CultureInfo.InvariantCulture); }

        public static SlotId FromUInt64(ulong value) { return new SlotId(value.ToString(CultureInfo.InvariantCulture)); }

        /// <summary>The id as a JSON number literal (the form the service writes new ids in).</summary>
        public JsonValue ToJsonNumber() { return JsonValue.FromNumberText(Digits); }

        public override string ToString() { return Digits; }
        public bool Equals(SlotId other) { return other != null && other.Digits == Digits; }
        public override bool Equals(object obj) { return Equals(obj as SlotId); }
        public override int GetHashCode() { return Digits.GetHashCode(); }

        private static bool IsCanonicalDigits(string s)
        {
            if (string.IsNullOrEmpty(s) || s.Length > 78) return false;
            if (s.Length > 1 && s[0] == '0') return false;
            foreach (char c in s) if (c < '0' || c > '9') return false;
            return true;
        }
    }
}
