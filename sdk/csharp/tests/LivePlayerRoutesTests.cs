using System;
using System.IO;
using System.Linq;
using System.Text;

namespace Dauth.Tests
{
    /// <summary>
    /// Native federated sign-in and identities, and the player's session-key grant, against a live dauth.
    /// packages/sdk/test/e2e/federation.test.ts runs <c>build.sh live-fed</c> with DAUTH_E2E_URL,
    /// DAUTH_E2E_CLIENT_ID, DAUTH_E2E_FED_PROVIDER, DAUTH_E2E_FED_TOKEN_1 and _2 (one new subject) and
    /// DAUTH_E2E_FED_BAD_TOKEN (another audience); sessionOperations.test.ts runs <c>build.sh live-sk</c>
    /// with DAUTH_E2E_URL, DAUTH_E2E_CLIENT_ID (an app with a wallet policy), and a player who approved
    /// it: DAUTH_E2E_SK_EMAIL, DAUTH_E2E_SK_PASSWORD, DAUTH_E2E_SK_PIN_SALT, DAUTH_E2E_SK_KEY_SHARE (PIN
    /// 123456). liveWebhooks.test.ts runs <c>build.sh live-hooks</c> with a delivery dauth sent
    /// (DAUTH_E2E_HOOK_FILE: its headers and raw body), its endpoint's secret and the expected app and
    /// user. Each skips without its variables.
    /// </summary>
    public static class LivePlayerRoutesTests
    {
        private static string Need(string name, string suite)
        {
            var value = Environment.GetEnvironmentVariable(name);
            if (string.IsNullOrEmpty(value) || string.IsNullOrEmpty(Environment.GetEnvironmentVariable("DAUTH_E2E_URL")))
                throw new SkipException(name + " is not set (packages/sdk/test/e2e/" + suite + " sets it)");
            return value;
        }

        private static DauthClient Client()
        {
            return new DauthClient(Environment.GetEnvironmentVariable("DAUTH_E2E_URL"), Environment.GetEnvironmentVariable("DAUTH_E2E_CLIENT_ID"));
        }

        public static void Register(TestRunner t)
        {
            t.Add("live-fed: federated sign-in creates then finds the account; bad token, identities, last way in", async () =>
            {
                string provider = Need("DAUTH_E2E_FED_PROVIDER", "federation.test.ts");
                var dauth = Client();
                var first = await dauth.FederatedLoginAsync(provider, Need("DAUTH_E2E_FED_TOKEN_1", "federation.test.ts"));
                Assert.True(first.Created, "the first sign-in creates the account");
                var again = await dauth.FederatedLoginAsync(provider, Need("DAUTH_E2E_FED_TOKEN_2", "federation.test.ts"));
                Assert.Equal(false, again.Created);
                Assert.Equal(first.Session.Uuid, again.Session.Uuid);
                var bad = await Assert.ThrowsAsync<InvalidIdTokenException>(() => dauth.FederatedLoginAsync(provider, Need("DAUTH_E2E_FED_BAD_TOKEN", "federation.test.ts")));
                Assert.Equal(401, bad.Status);
                var identities = await dauth.ListIdentitiesAsync(again.Session);
                Assert.Equal(1, identities.Count);
                Assert.Equal(provider, identities[0].Provider);
                // The game's token changes no way in (decisions §9): the console manages identities.
                await Assert.ThrowsAsync<FirstPartyRequiredException>(() => dauth.UnlinkIdentityAsync(again.Session, identities[0].Id));
                Assert.Equal(1, (await dauth.ListIdentitiesAsync(again.Session)).Count);
            });

            t.Add("live-hooks: a delivery dauth sent verifies, as its typed event; a changed byte does not", () =>
            {
                var file = JsonParser.Parse(File.ReadAllText(Need("DAUTH_E2E_HOOK_FILE", "liveWebhooks.test.ts"), Encoding.UTF8));
                string secret = Need("DAUTH_E2E_HOOK_SECRET", "liveWebhooks.test.ts");
                var headers = file.Get("headers").Members.ToDictionary(m => m.Key, m => m.Value.AsString);
                string body = file.Get("body").AsString;
                var e = Webhooks.Verify(secret, headers, body);
                Assert.Equal(WebhookEventTypes.GrantCreated, e.Type);
                Assert.Equal(headers["Webhook-Id"], e.Id);
                var grant = (GrantEvent)e;
                Assert.Equal(Need("DAUTH_E2E_HOOK_CLIENT_ID", "liveWebhooks.test.ts"), grant.ClientId);
                Assert.Equal(Need("DAUTH_E2E_HOOK_USER_ID", "liveWebhooks.test.ts"), grant.UserId);
                Assert.True(!string.IsNullOrEmpty(grant.GrantId), "a grant id");
                Assert.Throws<WebhookVerificationException>(() => Webhooks.Verify(secret, headers, body.Replace("grant.created", "grant.revoked")), "a changed type");
            });

            t.Add("live-sk: the player grants the game its wallet policy with the PIN, lists it, revokes it without the PIN", async () =>
            {
                string email = Need("DAUTH_E2E_SK_EMAIL", "sessionOperations.test.ts");
                var dauth = Client();
                var player = await dauth.LoginAsync(email, Need("DAUTH_E2E_SK_PASSWORD", "sessionOperations.test.ts"));
                var pin = PinCredentials.FromPin("123456", Need("DAUTH_E2E_SK_PIN_SALT", "sessionOperations.test.ts"), Need("DAUTH_E2E_SK_KEY_SHARE", "sessionOperations.test.ts"));
                var grant = await dauth.GrantSessionKeyAsync(player, pin);
                Assert.True(grant.SessionKey.StartsWith("0x", StringComparison.Ordinal) && grant.SessionKey.Length == 42, "a key address: " + grant.SessionKey);
                Assert.True(grant.UserOpHash != null && grant.TxHash != null, "registered on chain");
                Assert.True(grant.Policy.Calls.Count == 1 && grant.Policy.TokenLimitsPerDay.Count == 1, "the app's policy");

                var keys = await dauth.GetSessionKeysAsync(player);
                var mine = keys.Single(k => k.ClientId == dauth.ClientId);
                Assert.Equal(grant.SessionKey.ToLowerInvariant(), mine.SessionKey.ToLowerInvariant());
                Assert.True(mine.SpentTodayWei.HasValue && mine.ClientName != null, "the list says the app and today's spend");

                var revoked = await dauth.RevokeSessionKeyAsync(player);
                Assert.True(revoked == null || revoked.StartsWith("0x", StringComparison.Ordinal), "a transaction hash or none");
                Assert.True((await dauth.GetSessionKeysAsync(player)).All(k => k.ClientId != dauth.ClientId), "gone from the list");
                var again = await Assert.ThrowsAsync<NotFoundException>(() => dauth.RevokeSessionKeyAsync(player));
                Assert.Equal(ErrorCodes.SessionKeyNotFound, again.Code);
            });
        }
    }
}
