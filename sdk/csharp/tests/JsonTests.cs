using System;
using System.Collections.Generic;

namespace Dauth.Tests
{
    public static class JsonTests
    {
        public static void Register(TestRunner t)
        {
            t.Add("json: parses every kind and keeps number literals as written", () =>
            {
                var v = JsonParser.Parse(" {\"a\":[1,-0,2.5e-3,true,false,null],\"b\":\"x\\u00e9\\ud83d\\ude00\\n\",\"id\":9999999999999999999} ");
                Assert.Equal(JsonKind.Object, v.Kind);
                var a = v.Get("a").Items;
                Assert.Equal("1", a[0].NumberText);
                Assert.Equal("-0", a[1].NumberText);
                Assert.Equal("2.5e-3", a[2].NumberText);
                Assert.Equal(true, a[3].AsBool);
                Assert.Equal(JsonKind.Null, a[5].Kind);
                Assert.Equal("x\u00e9\ud83d\ude00\n", v.Get("b").AsString);
                Assert.Equal("9999999999999999999", v.Get("id").NumberText);
                Assert.True(v.Get("missing") == null, "absent member is null");
            });

            t.Add("json: refuses what RFC 8259 refuses", () =>
            {
                var bad = new[]
                {
                    "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity",
                    "'a'", "{'a':1}", "\"\t\"", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "[1] 2",
                    "{\"a\":1,\"a\":2}", "tru", "nul", "{\"a\" 1}", "[1 2]", "\"abc", "/*c*/1", "\u00a01",
                    new string('[', 65) + new string(']', 65),
                };
                foreach (var text in bad) Assert.Throws<FormatException>(() => JsonParser.Parse(text), "for " + text);
                // 64 levels are fine.
                JsonParser.Parse(new string('[', 64) + new string(']', 64));
            });

            t.Add("json: the writer escapes so the text reads back unchanged", () =>
            {
                var original = "q\"b\\s/\u0001\n\r\t\u2028\ud83d\ude00é";
                var written = new JsonObjectBuilder().Add("s", original).Add("n", JsonValue.FromNumberText("1234567890123456789")).ToString();
                Assert.True(written.IndexOf('\u0001') < 0 && written.IndexOf('\n') < 0, "no raw control characters");
                var back = JsonParser.Parse(written);
                Assert.Equal(original, back.Get("s").AsString);
                Assert.Equal("1234567890123456789", back.Get("n").NumberText);
                Assert.Equal("{\"s\":\"x\",\"b\":true,\"z\":null,\"a\":[]}",
                    new JsonObjectBuilder().Add("s", "x").Add("b", JsonValue.True).Add("z", JsonValue.Null)
                        .Add("a", JsonValue.NewArray(new JsonValue[0])).AddOptional("skipped", null).ToString());
            });

            t.Add("json: a lone surrogate is written as an escape, and numbers must be valid literals", () =>
            {
                var written = JsonWriter.Write(JsonValue.FromString("a\ud800b"));
                Assert.Equal("\"a\\ud800b\"", written);
                Assert.Throws<ArgumentException>(() => JsonValue.FromNumberText("1e"));
                Assert.Throws<ArgumentException>(() => JsonValue.FromNumberText("01"));
                Assert.Throws<ArgumentException>(() => JsonValue.NewObject(new[]
                {
                    new KeyValuePair<string, JsonValue>("a", JsonValue.Null), new KeyValuePair<string, JsonValue>("a", JsonValue.Null),
                }));
            });

            t.Add("slot id: 19 digits exact as a number or a string; fractions and exponents refused", () =>
            {
                var id = SlotId.FromJson(JsonParser.Parse("9999999999999999999"));
                Assert.Equal("9999999999999999999", id.Digits);
                Assert.Equal(9999999999999999999UL, id.ToUInt64());
                Assert.Equal(id, SlotId.FromJson(JsonParser.Parse("\"9999999999999999999\"")));
                Assert.Equal("9223372036854775808", SlotId.FromUInt64(9223372036854775808UL).Digits);
                Assert.Equal("{\"id\":1234567890123456789}",
                    new JsonObjectBuilder().Add("id", SlotId.Parse("1234567890123456789").ToJsonNumber()).ToString());
                foreach (var bad in new[] { "1.0", "1e3", "-1", "\"01\"", "\"1.5\"", "\"\"", "true", "null", "\" 1\"" })
                    Assert.Throws<FormatException>(() => SlotId.FromJson(JsonParser.Parse(bad)), "for " + bad);
                // A double cannot hold it: the reason the id never goes through one.
                Assert.True(((ulong)(double)9999999999999999999UL) != 9999999999999999999UL, "double rounds the id");
            });
        }
    }
}
