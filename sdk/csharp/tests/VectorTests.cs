using System;
using System.IO;
using System.Text;

namespace Dauth.Tests
{
    /// <summary>
    /// The shared sdk/vectors/vectors.json bodies, read with this SDK's parser: every expected slot id
    /// comes out digit for digit (19 digits, 2^63, as a number or a string), and an id written with a
    /// fraction or an exponent is refused.
    /// </summary>
    public static class VectorTests
    {
        public static void Register(TestRunner t)
        {
            t.Add("vectors: slot ids of the shared envelope bodies are exact", () =>
            {
                var file = JsonParser.Parse(File.ReadAllText(Path.Combine(TestRunner.SdkDir, "vectors", "vectors.json"), Encoding.UTF8));
                int exact = 0, refused = 0;
                foreach (var entry in file.Get("envelopes").Items)
                {
                    var expect = entry.Get("expect");
                    JsonValue body;
                    try { body = JsonParser.Parse(entry.Get("body").AsString); }
                    catch (FormatException) { continue; } // the non-JSON cases
                    var data = body.Get("data");
                    if (data == null || data.Kind != JsonKind.Array || data.Items.Count == 0) continue;
                    var id = data.Items[0].Get("id");
                    if (id == null) continue;
                    if (expect.Get("outcome").AsString == "slot")
                    {
                        var slot = expect.Get("slot");
                        var parsed = SlotId.FromJson(id);
                        Assert.Equal(slot.Get("id").AsString, parsed.Digits, entry.Get("name").AsString);
                        Assert.Equal(slot.Get("id_kind").AsString, id.Kind == JsonKind.Number ? "number" : "string");
                        exact++;
                    }
                    else if (id.Kind == JsonKind.Number && (id.NumberText.IndexOfAny(new[] { '.', 'e', 'E', '-' }) >= 0))
                    {
                        Assert.Throws<FormatException>(() => SlotId.FromJson(id), entry.Get("name").AsString);
                        refused++;
                    }
                }
                Assert.True(exact >= 3, "at least three exact ids, got " + exact);
                Assert.True(refused >= 1, "at least one inexact id refused, got " + refused);
            });
        }
    }
}
