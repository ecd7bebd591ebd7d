using System;
using System.Collections.Generic;
using System.Globalization;
using System.Numerics;

namespace Dauth
{
    /// <summary>Reads answers: a 2xx JSON object into fields, anything else into its typed <see cref="DauthException"/>.</summary>
    internal static class Read
    {
        /// <summary>The JSON object of a 2xx answer; a non-2xx answer throws its error.</summary>
        public static JsonValue Answer(DauthHttpResponse response)
        {
            if (response.Status < 200 || response.Status > 299) throw ErrorOf(response);
            JsonValue json;
            try
            {
                json = JsonParser.Parse(response.Body);
            }
            catch (FormatException e)
            {
                throw new MalformedResponseException(response.Status, "the answer is not JSON: " + e.Message);
            }
            if (json.Kind != JsonKind.Object) throw new MalformedResponseException(response.Status, "the answer is not a JSON object");
            return json;
        }

        /// <summary>
        /// The error of a non-2xx answer: decisions §2's {error, message} (with field), or RFC 6749's
        /// {error, error_description}. A body without a code (a proxy's page) gets "http_STATUS".
        /// </summary>
        public static DauthException ErrorOf(DauthHttpResponse response)
        {
            string code = null, message = null, field = null;
            try
            {
                var json = JsonParser.Parse(response.Body);
                var error = json.Get("error");
                if (error != null && error.Kind == JsonKind.String) code = error.AsString;
                message = Text(json, "message") ?? Text(json, "error_description");
                field = Text(json, "field");
            }
            catch (FormatException)
            {
                // Not JSON: typed by its status alone.
            }
            int seconds;
            int? retryAfter = response.RetryAfter != null && int.TryParse(response.RetryAfter, NumberStyles.None, CultureInfo.InvariantCulture, out seconds)
                ? seconds : (int?)null;
            return DauthException.Create(code ?? "http_" + response.Status, response.Status,
                message ?? "dauth answered HTTP " + response.Status, field, retryAfter);
        }

        private static string Text(JsonValue json, string name)
        {
            var value = json.Get(name);
            return value != null && value.Kind == JsonKind.String ? value.AsString : null;
        }

        private static JsonValue Field(JsonValue json, string name, JsonKind kind)
        {
            var value = json.Get(name);
            if (value == null || value.Kind != kind) throw new MalformedResponseException(200, "field '" + name + "' is missing or not a " + kind);
            return value;
        }

        public static string String(JsonValue json, string name) { return Field(json, name, JsonKind.String).AsString; }

        public static string OptionalString(JsonValue json, string name)
        {
            var value = json.Get(name);
            if (value == null || value.Kind == JsonKind.Null) return null;
            if (value.Kind != JsonKind.String) throw new MalformedResponseException(200, "field '" + name + "' is not a string");
            return value.AsString;
        }

        public static bool Bool(JsonValue json, string name) { return Field(json, name, JsonKind.Bool).AsBool; }

        public static long Integer(JsonValue json, string name)
        {
            try { return Field(json, name, JsonKind.Number).AsLong; }
            catch (FormatException) { throw new MalformedResponseException(200, "field '" + name + "' is not an integer"); }
        }

        public static IReadOnlyList<JsonValue> Array(JsonValue json, string name) { return Field(json, name, JsonKind.Array).Items; }

        /// <summary>A uuid: decimal digits, sent as a string or a number.</summary>
        public static string Digits(JsonValue json, string name) { return Slot(json, name).Digits; }

        public static SlotId Slot(JsonValue json, string name)
        {
            try { return SlotId.FromJson(json.Get(name)); }
            catch (FormatException e) { throw new MalformedResponseException(200, "field '" + name + "': " + e.Message); }
        }

        /// <summary>A decimal-string amount (wei, base units), exact.</summary>
        public static BigInteger Amount(JsonValue json, string name)
        {
            var text = String(json, name);
            BigInteger value;
            if (text.Length == 0 || text[0] == '-' || text[0] == '+' || !BigInteger.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value))
                throw new MalformedResponseException(200, "field '" + name + "' is not a decimal amount");
            return value;
        }

        public static BigInteger? OptionalAmount(JsonValue json, string name)
        {
            var value = json.Get(name);
            if (value == null || value.Kind == JsonKind.Null) return null;
            return Amount(json, name);
        }

        /// <summary>Fills a cuid's balance and use; the slot list names the use "used", the public query "used_balances".</summary>
        public static T Balance<T>(T balance, JsonValue json, string usedName) where T : ContentBalance
        {
            balance.Cuid = String(json, "cuid");
            balance.Balance = Amount(json, "balance");
            balance.Used = Amount(json, usedName);
            return balance;
        }

        /// <summary>Throws <see cref="MfaRequiredException"/> for the first of two sign-in steps (mfa_required: true, no token).</summary>
        public static void ThrowIfMfaRequired(JsonValue json)
        {
            var flag = json.Get("mfa_required");
            if (flag == null || flag.Kind != JsonKind.Bool || !flag.AsBool) return;
            var methods = new List<string>();
            foreach (var method in Array(json, "methods")) methods.Add(method.AsString);
            var expires = json.Get("expires_in");
            var created = json.Get("created");
            throw new MfaRequiredException(String(json, "mfa_token"), methods.AsReadOnly(),
                expires != null && expires.Kind == JsonKind.Number ? (int?)Integer(json, "expires_in") : null,
                created != null && created.Kind == JsonKind.Bool ? (bool?)created.AsBool : null);
        }

        public static PlayerSession Session(JsonValue json)
        {
            return new PlayerSession(String(json, "token"), Digits(json, "uuid"));
        }

        public static LinkedIdentity Identity(JsonValue json)
        {
            if (json.Kind != JsonKind.Object) throw new MalformedResponseException(200, "an identity is not an object");
            var provider = String(json, "provider");
            var id = json.Get("id");
            return new LinkedIdentity
            {
                Id = id != null && id.Kind == JsonKind.Number ? id.NumberText : String(json, "id"),
                Provider = provider,
                ProviderName = OptionalString(json, "provider_name") ?? provider,
                Subject = String(json, "subject"),
                Email = OptionalString(json, "email"),
                CreatedAt = String(json, "created_at"),
            };
        }

        /// <summary>A session key of the list, or the grant's answer (which has no client_id, name or spend).</summary>
        public static SessionKeyGrant SessionKey(JsonValue json)
        {
            if (json.Kind != JsonKind.Object) throw new MalformedResponseException(200, "a session key is not an object");
            var spent = json.Get("spent_today");
            var tokens = new List<TokenAmount>();
            if (spent != null && spent.Kind == JsonKind.Object)
                foreach (var t in Array(spent, "tokens")) tokens.Add(new TokenAmount { Token = String(t, "token"), Amount = Amount(t, "amount") });
            return new SessionKeyGrant
            {
                ClientId = OptionalString(json, "client_id"),
                ClientName = OptionalString(json, "client_name"),
                SessionKey = String(json, "session_key"),
                ValidUntil = String(json, "valid_until"),
                Policy = Policy(Field(json, "policy", JsonKind.Object)),
                SpentTodayWei = spent != null && spent.Kind == JsonKind.Object ? Amount(spent, "value_wei") : (BigInteger?)null,
                SpentTodayTokens = tokens,
                CreatedAt = OptionalString(json, "created_at"),
                UserOpHash = OptionalString(json, "user_op_hash"),
                TxHash = OptionalString(json, "tx_hash"),
            };
        }

        private static WalletPolicy Policy(JsonValue json)
        {
            var calls = new List<PolicyCall>();
            foreach (var c in Array(json, "calls"))
            {
                var selectors = new List<string>();
                foreach (var s in Array(c, "selectors"))
                {
                    if (s.Kind != JsonKind.String) throw new MalformedResponseException(200, "a selector is not a string");
                    selectors.Add(s.AsString);
                }
                calls.Add(new PolicyCall { To = String(c, "to"), Selectors = selectors });
            }
            var limits = new List<TokenAmount>();
            foreach (var l in Array(json, "token_limits")) limits.Add(new TokenAmount { Token = String(l, "token"), Amount = Amount(l, "per_day") });
            return new WalletPolicy
            {
                Calls = calls,
                MaxValuePerCallWei = Amount(json, "max_value_per_call_wei"),
                MaxValuePerDayWei = Amount(json, "max_value_per_day_wei"),
                TokenLimitsPerDay = limits,
                ValidForSeconds = Integer(json, "valid_for_seconds"),
            };
        }

        public static LoginStatus Status(JsonValue json)
        {
            return new LoginStatus
            {
                UserId = String(json, "user_id"),
                Status = String(json, "status"),
                TransferEnabled = Bool(json, "transfer_enabled"),
                Timestamp = OptionalString(json, "timestamp"),
            };
        }
    }
}
