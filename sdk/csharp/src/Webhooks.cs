using System;
using System.Collections.Generic;
using System.Collections.Specialized;
using System.Globalization;
using System.Numerics;
using System.Security.Cryptography;
using System.Text;

namespace Dauth
{
    /// <summary>
    /// Verifies dauth's webhook deliveries (Standard Webhooks; docs/webhooks.md) on a game's or a
    /// studio's .NET backend: the <c>webhook-signature</c> is the HMAC-SHA256 of
    /// <c>webhook-id.webhook-timestamp.body</c> under the endpoint's <c>whsec_</c> secret (any <c>v1,</c>
    /// signature of the header may match: there are two during a secret rotation), compared in
    /// constant time, and the timestamp must be within 5 minutes of now (replays). Deduplicate by
    /// <see cref="WebhookEvent.Id"/>: it is the same on every retry.
    /// </summary>
    public static class Webhooks
    {
        /// <summary>How far a delivery's webhook-timestamp may be from now, in seconds.</summary>
        public const int ToleranceSeconds = 300;

        /// <summary>Verifies a delivery and returns its typed event; the body is the raw request body's bytes.</summary>
        /// <exception cref="WebhookVerificationException">The delivery is not authentic or not a dauth event: answer 400.</exception>
        public static WebhookEvent Verify(string secret, IEnumerable<KeyValuePair<string, string>> headers, byte[] body)
        {
            return Verify(new[] { secret }, HeaderLookup(headers), body, DateTimeOffset.UtcNow);
        }

        /// <summary>The same, with the body as the UTF-8 text it arrived as.</summary>
        public static WebhookEvent Verify(string secret, IEnumerable<KeyValuePair<string, string>> headers, string body)
        {
            return Verify(new[] { secret }, HeaderLookup(headers), Utf8(body), DateTimeOffset.UtcNow);
        }

        /// <summary>The same, with the headers of HttpListener or System.Web (a NameValueCollection).</summary>
        public static WebhookEvent Verify(string secret, NameValueCollection headers, byte[] body)
        {
            if (headers == null) throw new ArgumentNullException("headers");
            return Verify(new[] { secret }, name => headers[name], body, DateTimeOffset.UtcNow);
        }

        /// <summary>
        /// The general form: <paramref name="secrets"/> may hold several (your new and old secret while
        /// you roll a rotation out), <paramref name="header"/> reads a header by its lower-case name
        /// (null when absent), and <paramref name="now"/> is the clock (tests, replays of a stored delivery).
        /// </summary>
        public static WebhookEvent Verify(IEnumerable<string> secrets, Func<string, string> header, byte[] body, DateTimeOffset now)
        {
            if (secrets == null) throw new ArgumentNullException("secrets");
            if (header == null) throw new ArgumentNullException("header");
            if (body == null) throw new ArgumentNullException("body");
            string id = header("webhook-id"), timestamp = header("webhook-timestamp"), signatures = header("webhook-signature");
            if (string.IsNullOrEmpty(id) || string.IsNullOrEmpty(timestamp) || string.IsNullOrEmpty(signatures))
                throw new WebhookVerificationException("missing required headers");
            long sent;
            if (timestamp.Length > 15 || !long.TryParse(timestamp, NumberStyles.None, CultureInfo.InvariantCulture, out sent))
                throw new WebhookVerificationException("invalid webhook-timestamp");
            long skew = now.ToUnixTimeSeconds() - sent;
            if (skew > ToleranceSeconds) throw new WebhookVerificationException("message timestamp too old");
            if (-skew > ToleranceSeconds) throw new WebhookVerificationException("message timestamp too new");

            var prefix = Utf8(id + "." + timestamp + ".");
            var signed = new byte[prefix.Length + body.Length];
            Buffer.BlockCopy(prefix, 0, signed, 0, prefix.Length);
            Buffer.BlockCopy(body, 0, signed, prefix.Length, body.Length);
            var offered = new List<byte[]>();
            foreach (var part in signatures.Split(' '))
            {
                int comma = part.IndexOf(',');
                if (comma < 0 || part.Substring(0, comma) != "v1" || comma == part.Length - 1) continue;
                try { offered.Add(Convert.FromBase64String(part.Substring(comma + 1))); }
                catch (FormatException) { }
            }
            bool valid = false;
            foreach (var secret in secrets)
            {
                byte[] key;
                try { key = SecretKey(secret); }
                catch (FormatException) { continue; }
                byte[] expected;
                using (var hmac = new HMACSHA256(key)) expected = hmac.ComputeHash(signed);
                // Every comparison runs, each in constant time.
                foreach (var candidate in offered) valid |= FixedTimeEquals(candidate, expected);
            }
            if (!valid) throw new WebhookVerificationException("no matching signature found");

            JsonValue json;
            try { json = JsonParser.Parse(Encoding.UTF8.GetString(body)); }
            catch (FormatException) { throw new WebhookVerificationException("the body is not JSON"); }
            var type = json.Kind == JsonKind.Object ? json.Get("type") : null;
            var data = json.Kind == JsonKind.Object ? json.Get("data") : null;
            if (type == null || type.Kind != JsonKind.String || data == null || data.Kind != JsonKind.Object)
                throw new WebhookVerificationException("the body is not a dauth event");
            var stamp = json.Get("timestamp");
            return WebhookEvent.Create(id, type.AsString, stamp != null && stamp.Kind == JsonKind.String ? stamp.AsString : null, data);
        }

        private static byte[] Utf8(string text)
        {
            if (text == null) throw new ArgumentNullException("body");
            return new UTF8Encoding(false, true).GetBytes(text);
        }

        private static byte[] SecretKey(string secret)
        {
            if (secret == null) throw new FormatException("no secret");
            return Convert.FromBase64String(secret.StartsWith("whsec_", StringComparison.Ordinal) ? secret.Substring(6) : secret);
        }

        private static bool FixedTimeEquals(byte[] a, byte[] b)
        {
            if (a.Length != b.Length) return false;
            int difference = 0;
            for (int i = 0; i < a.Length; i++) difference |= a[i] ^ b[i];
            return difference == 0;
        }

        private static Func<string, string> HeaderLookup(IEnumerable<KeyValuePair<string, string>> headers)
        {
            if (headers == null) throw new ArgumentNullException("headers");
            var byName = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            foreach (var header in headers)
                if (!byName.ContainsKey(header.Key)) byName[header.Key] = header.Value;
            return name => { string value; return byName.TryGetValue(name, out value) ? value : null; };
        }
    }

    /// <summary>A delivery that is not authentic (signature, timestamp) or not a dauth event: answer it with a 400.</summary>
    public sealed class WebhookVerificationException : Exception
    {
        public WebhookVerificationException(string message) : base("webhook verification failed: " + message) { }
    }

    /// <summary>The event types dauth sends (docs/webhooks.md).</summary>
    public static class WebhookEventTypes
    {
        public const string GrantCreated = "grant.created";
        public const string GrantRevoked = "grant.revoked";
        public const string StatusChanged = "status.changed";
        public const string SlotCreated = "slot.created";
        public const string SlotTransferred = "slot.transferred";
        public const string MarketListingSold = "market.listing.sold";
        public const string ContentPurchased = "content.purchased";
        public const string ContentConsumed = "content.consumed";
        public const string ContentReleased = "content.released";
        public const string SessionKeyGranted = "session_key.granted";
        public const string SessionKeyRevoked = "session_key.revoked";
        public const string UserDeleted = "user.deleted";
        /// <summary>One of the app's own sponsorship budgets refused its first operation of the UTC day (docs/sponsorship.md); data: budget, day.</summary>
        public const string SponsorshipExhausted = "sponsorship.exhausted";
    }

    /// <summary>
    /// One verified delivery. The subclass says which event it is (<c>if (e is ContentPurchasedEvent p)</c>);
    /// a type this SDK does not know yet stays a plain <see cref="WebhookEvent"/> with its <see cref="Data"/>.
    /// Ids are strings (slot ids exact, as <see cref="SlotId"/>), amounts exact <see cref="BigInteger"/>s;
    /// a member the event did not carry reads as null.
    /// </summary>
    public class WebhookEvent
    {
        internal WebhookEvent(string id, string type, string timestamp, JsonValue data)
        {
            Id = id; Type = type; Timestamp = timestamp; Data = data;
        }

        /// <summary>The webhook-id: the same on every retry of this event. Deduplicate by it.</summary>
        public string Id { get; private set; }
        /// <summary>One of <see cref="WebhookEventTypes"/>.</summary>
        public string Type { get; private set; }
        /// <summary>When the change happened (ISO 8601 UTC).</summary>
        public string Timestamp { get; private set; }
        /// <summary>The event's data object as sent.</summary>
        public JsonValue Data { get; private set; }
        /// <summary>The app the event is about.</summary>
        public string ClientId => Text("client_id");

        /// <summary>A string member of <see cref="Data"/>, or null; a number is given as its literal text.</summary>
        public string Text(string name)
        {
            var value = Data.Get(name);
            if (value == null) return null;
            if (value.Kind == JsonKind.String) return value.AsString;
            return value.Kind == JsonKind.Number ? value.NumberText : null;
        }

        /// <summary>A decimal amount of <see cref="Data"/> (wei or token units), exact; null when absent.</summary>
        public BigInteger? Amount(string name)
        {
            var text = Text(name);
            BigInteger value;
            return text != null && BigInteger.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) ? value : (BigInteger?)null;
        }

        /// <summary>A slot id of <see cref="Data"/>; null when absent.</summary>
        public SlotId Slot(string name)
        {
            var value = Data.Get(name);
            if (value == null || value.Kind == JsonKind.Null) return null;
            try { return SlotId.FromJson(value); }
            catch (FormatException) { return null; }
        }

        internal static WebhookEvent Create(string id, string type, string timestamp, JsonValue data)
        {
            switch (type)
            {
                case WebhookEventTypes.GrantCreated:
                case WebhookEventTypes.GrantRevoked: return new GrantEvent(id, type, timestamp, data);
                case WebhookEventTypes.StatusChanged: return new StatusChangedEvent(id, type, timestamp, data);
                case WebhookEventTypes.SlotCreated:
                case WebhookEventTypes.SlotTransferred: return new SlotEvent(id, type, timestamp, data);
                case WebhookEventTypes.MarketListingSold: return new MarketListingSoldEvent(id, type, timestamp, data);
                case WebhookEventTypes.ContentPurchased:
                case WebhookEventTypes.ContentConsumed:
                case WebhookEventTypes.ContentReleased: return new ContentEvent(id, type, timestamp, data);
                case WebhookEventTypes.SessionKeyGranted:
                case WebhookEventTypes.SessionKeyRevoked: return new SessionKeyEvent(id, type, timestamp, data);
                case WebhookEventTypes.UserDeleted: return new UserDeletedEvent(id, type, timestamp, data);
                default: return new WebhookEvent(id, type, timestamp, data);
            }
        }
    }

    /// <summary>grant.created (a grant opened) and grant.revoked (with its <see cref="Reason"/>).</summary>
    public sealed class GrantEvent : WebhookEvent
    {
        internal GrantEvent(string id, string type, string timestamp, JsonValue data) : base(id, type, timestamp, data) { }
        public string GrantId => Text("grant_id");
        public string UserId => Text("user_id");
        /// <summary>The slot of a backend-flow grant, else null.</summary>
        public SlotId SlotId => Slot("slot_id");
        public string Scope => Text("scope");
        /// <summary>grant.revoked: logout, revocation by the user, refresh replay, slot sold, app deleted.</summary>
        public string Reason => Text("reason");
    }

    /// <summary>status.changed: the player's login status for the app.</summary>
    public sealed class StatusChangedEvent : WebhookEvent
    {
        internal StatusChangedEvent(string id, string type, string timestamp, JsonValue data) : base(id, type, timestamp, data) { }
        public string UserId => Text("user_id");
        /// <summary>"logged_in" or "logged_out".</summary>
        public string Status => Text("status");
        /// <summary>The status before, null the first time.</summary>
        public string Previous => Text("previous");
    }

    /// <summary>slot.created and slot.transferred.</summary>
    public sealed class SlotEvent : WebhookEvent
    {
        internal SlotEvent(string id, string type, string timestamp, JsonValue data) : base(id, type, timestamp, data) { }
        public SlotId SlotId => Slot("slot_id");
        /// <summary>slot.created: the owner.</summary>
        public string UserId => Text("user_id");
        public string ContentAddress => Text("content_address");
        public string FromUserId => Text("from_user_id");
        public string ToUserId => Text("to_user_id");
        /// <summary>slot.transferred: the move, null when settled by reconciliation (then <see cref="Reason"/> is "reconciled").</summary>
        public string TxHash => Text("tx_hash");
        public string Reason => Text("reason");
    }

    /// <summary>market.listing.sold: a marketplace sale with its price in wei.</summary>
    public sealed class MarketListingSoldEvent : WebhookEvent
    {
        internal MarketListingSoldEvent(string id, string type, string timestamp, JsonValue data) : base(id, type, timestamp, data) { }
        public string ListingId => Text("listing_id");
        public SlotId SlotId => Slot("slot_id");
        public string SellerUserId => Text("seller_user_id");
        public string BuyerUserId => Text("buyer_user_id");
        public BigInteger? Price => Amount("price");
        public string TxHash => Text("tx_hash");
    }

    /// <summary>content.purchased, content.consumed (once on chain) and content.released.</summary>
    public sealed class ContentEvent : WebhookEvent
    {
        internal ContentEvent(string id, string type, string timestamp, JsonValue data) : base(id, type, timestamp, data) { }
        public string Cuid => Text("cuid");
        public SlotId SlotId => Slot("slot_id");
        public string SlotAddress => Text("slot_address");
        public string UserId => Text("user_id");
        /// <summary>Content tokens bought or consumed; for content.released the wei paid.</summary>
        public BigInteger? TokenAmount => Amount("amount");
        public BigInteger? NativePaid => Amount("native_paid");
        public BigInteger? PlatformFee => Amount("platform_fee");
        public BigInteger? ProviderReceived => Amount("provider_received");
        public string RecordId => Text("record_id");
        public BigInteger? BalanceAfter => Amount("balance_after");
        public BigInteger? UsedAfter => Amount("used_after");
        public BigInteger? Usage => Amount("usage");
        public string TxHash => Text("tx_hash");
    }

    /// <summary>user.deleted: the player deleted their account (docs/account.md); forget what the app keeps about them.</summary>
    public sealed class UserDeletedEvent : WebhookEvent
    {
        internal UserDeletedEvent(string id, string type, string timestamp, JsonValue data) : base(id, type, timestamp, data) { }
        public string UserId => Text("user_id");
    }

    /// <summary>session_key.granted and session_key.revoked: the app's PIN-less powers over the player's wallet (docs/session-keys.md).</summary>
    public sealed class SessionKeyEvent : WebhookEvent
    {
        internal SessionKeyEvent(string id, string type, string timestamp, JsonValue data) : base(id, type, timestamp, data) { }
        public string UserUuid => Text("user_uuid");
        /// <summary>The session key's address (its private key never leaves dauth).</summary>
        public string SessionKey => Text("session_key");
        /// <summary>ISO 8601 UTC.</summary>
        public string ValidUntil => Text("valid_until");
        /// <summary>The registration or revocation on chain; null when there was none to send.</summary>
        public string TxHash => Text("tx_hash");
    }
}
