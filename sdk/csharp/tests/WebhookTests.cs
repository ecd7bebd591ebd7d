using System;
using System.Collections.Generic;
using System.Collections.Specialized;
using System.IO;
using System.Linq;
using System.Numerics;
using System.Text;

namespace Dauth.Tests
{
    /// <summary>
    /// Dauth.Webhooks.Verify against sdk/vectors/webhooks.json: deliveries signed by the standardwebhooks
    /// npm package (the reference implementation), exactly the valid ones accepted, each as its typed event.
    /// </summary>
    public static class WebhookTests
    {
        private static JsonValue Deliveries()
        {
            var file = JsonParser.Parse(File.ReadAllText(Path.Combine(TestRunner.SdkDir, "vectors", "webhooks.json"), Encoding.UTF8));
            return file.Get("deliveries");
        }

        private static Dictionary<string, string> Headers(JsonValue vector)
        {
            return vector.Get("headers").Members.ToDictionary(m => m.Key, m => m.Value.AsString);
        }

        private static WebhookEvent Verify(JsonValue vector, Dictionary<string, string> headers = null, string body = null, long? now = null)
        {
            var secrets = vector.Get("secrets").Items.Select(s => s.AsString).ToList();
            var byName = headers ?? Headers(vector);
            Func<string, string> header = name => { string v; return byName.TryGetValue(name, out v) ? v : null; };
            return Webhooks.Verify(secrets, header, Encoding.UTF8.GetBytes(body ?? vector.Get("body").AsString),
                DateTimeOffset.FromUnixTimeSeconds(now ?? vector.Get("now").AsLong));
        }

        public static void Register(TestRunner t)
        {
            t.Add("webhooks: exactly the valid vectors verify, each data member as signed", () =>
            {
                int valid = 0, invalid = 0;
                foreach (var vector in Deliveries().Items)
                {
                    string name = vector.Get("name").AsString;
                    var expect = vector.Get("expect");
                    if (!expect.Get("valid").AsBool)
                    {
                        Assert.Throws<WebhookVerificationException>(() => Verify(vector), name);
                        invalid++;
                        continue;
                    }
                    var e = Verify(vector);
                    Assert.Equal(vector.Get("headers").Get("webhook-id").AsString, e.Id, name);
                    Assert.Equal(expect.Get("type").AsString, e.Type, name);
                    Assert.Equal("2025-11-24T16:00:00.000Z", e.Timestamp, name);
                    Assert.Equal(expect.Get("data").ToString(), e.Data.ToString(), name + ": data");
                    Assert.Equal("c0ffee", e.ClientId, name);
                    valid++;
                }
                Assert.True(valid >= 15 && invalid >= 9, "vectors read: " + valid + " valid, " + invalid + " invalid");
            });

            t.Add("webhooks: each event type is its typed event, ids and amounts exact", () =>
            {
                var byType = new Dictionary<string, WebhookEvent>();
                foreach (var vector in Deliveries().Items)
                    if (vector.Get("expect").Get("valid").AsBool && vector.Get("name").AsString.EndsWith("signed with the endpoint secret", StringComparison.Ordinal))
                    {
                        var e = Verify(vector);
                        byType[e.Type] = e;
                    }
                Assert.Equal(11, byType.Count, "event types in the vectors");
                var created = (GrantEvent)byType[WebhookEventTypes.GrantCreated];
                Assert.Equal("1234567890123456789", created.SlotId.Digits);
                Assert.Equal("g_1", created.GrantId);
                Assert.Equal("logout", ((GrantEvent)byType[WebhookEventTypes.GrantRevoked]).Reason);
                var status = (StatusChangedEvent)byType[WebhookEventTypes.StatusChanged];
                Assert.Equal("logged_out", status.Status);
                Assert.Equal("logged_in", status.Previous);
                Assert.Equal("43", ((SlotEvent)byType[WebhookEventTypes.SlotTransferred]).ToUserId);
                var sold = (MarketListingSoldEvent)byType[WebhookEventTypes.MarketListingSold];
                Assert.Equal(BigInteger.Parse("1000000000000000000"), sold.Price.Value);
                var bought = (ContentEvent)byType[WebhookEventTypes.ContentPurchased];
                Assert.Equal(BigInteger.Parse("425000000000000000"), bought.ProviderReceived.Value);
                Assert.Equal(BigInteger.Parse("877"), ((ContentEvent)byType[WebhookEventTypes.ContentConsumed]).BalanceAfter.Value);
                Assert.Equal(BigInteger.Parse("123"), ((ContentEvent)byType[WebhookEventTypes.ContentReleased]).Usage.Value);
                var granted = (SessionKeyEvent)byType[WebhookEventTypes.SessionKeyGranted];
                Assert.Equal("42", granted.UserUuid);
                Assert.Equal("0x00000000000000000000000000000000000000bb", granted.SessionKey);
                Assert.Equal("2025-12-24T16:00:00.000Z", granted.ValidUntil);
                Assert.Equal("0x" + string.Concat(Enumerable.Repeat("56", 32)), granted.TxHash);
                var revoked = (SessionKeyEvent)byType[WebhookEventTypes.SessionKeyRevoked];
                Assert.Equal(null, revoked.TxHash, "a revocation without a transaction");
            });

            t.Add("webhooks: 5-minute tolerance, one changed byte, the whsec_ prefix and the header forms", () =>
            {
                var vector = Deliveries().Items.First(v => v.Get("name").AsString.StartsWith("status.changed", StringComparison.Ordinal));
                long sent = long.Parse(Headers(vector)["webhook-timestamp"]);
                Verify(vector, now: sent + 300);
                Verify(vector, now: sent - 300);
                Assert.Throws<WebhookVerificationException>(() => Verify(vector, now: sent + 301), "301 s old");
                Assert.Throws<WebhookVerificationException>(() => Verify(vector, now: sent - 301), "301 s ahead");
                var body = vector.Get("body").AsString;
                Assert.Throws<WebhookVerificationException>(() => Verify(vector, body: body.Replace("logged_out", "logged_ouT")), "a changed byte");
                var headers = Headers(vector);
                headers["webhook-timestamp"] = "+" + sent;
                Assert.Throws<WebhookVerificationException>(() => Verify(vector, headers), "a signed timestamp");

                // The same secret without its whsec_ prefix verifies too; a malformed secret never does.
                string secret = vector.Get("secrets").Items[0].AsString;
                Func<string, string> header = name => { string v; return Headers(vector).TryGetValue(name, out v) ? v : null; };
                var at = DateTimeOffset.FromUnixTimeSeconds(sent);
                Webhooks.Verify(new[] { secret.Substring(6) }, header, Encoding.UTF8.GetBytes(body), at);
                Assert.Throws<WebhookVerificationException>(() => Webhooks.Verify(new[] { "whsec_not base64!" }, header, Encoding.UTF8.GetBytes(body), at), "bad secret");

                // The public overloads with the real clock: a delivery signed now verifies from a
                // dictionary (any header case) and from a NameValueCollection.
                var key = Convert.FromBase64String(secret.Substring(6));
                string id = "msg_now", ts = DateTimeOffset.UtcNow.ToUnixTimeSeconds().ToString();
                string signature;
                using (var hmac = new System.Security.Cryptography.HMACSHA256(key))
                    signature = "v1," + Convert.ToBase64String(hmac.ComputeHash(Encoding.UTF8.GetBytes(id + "." + ts + "." + body)));
                var upper = new Dictionary<string, string> { { "Webhook-Id", id }, { "Webhook-Timestamp", ts }, { "Webhook-Signature", "v1,AAAA " + signature } };
                Assert.Equal("status.changed", Webhooks.Verify(secret, upper, body).Type);
                var collection = new NameValueCollection { { "webhook-id", id }, { "webhook-timestamp", ts }, { "webhook-signature", signature } };
                Assert.True(Webhooks.Verify(secret, collection, Encoding.UTF8.GetBytes(body)) is StatusChangedEvent, "typed");
                Assert.Throws<WebhookVerificationException>(() => Webhooks.Verify(secret, new Dictionary<string, string>(), body), "no headers");
            });
        }
    }
}
