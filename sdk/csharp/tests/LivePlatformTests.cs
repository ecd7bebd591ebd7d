using System;
using System.Globalization;
using System.Net.Http;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>
    /// Platform sign-in inside the game against a live dauth: one call per kind. packages/sdk/test/e2e/
    /// platformLogin.test.ts runs <c>build.sh live-platform</c> with DAUTH_E2E_URL, DAUTH_E2E_CLIENT_ID and
    /// DAUTH_E2E_PLATFORM_DESK, the platform fakes' credential desk (<c>GET {desk}/{kind}?…</c> answers a fresh
    /// <c>{provider, credential}</c>, as the platform's SDK would hand the game). Skips without them.
    /// </summary>
    public static class LivePlatformTests
    {
        private static string Desk()
        {
            var desk = Environment.GetEnvironmentVariable("DAUTH_E2E_PLATFORM_DESK");
            if (string.IsNullOrEmpty(desk) || string.IsNullOrEmpty(Environment.GetEnvironmentVariable("DAUTH_E2E_URL")))
                throw new SkipException("DAUTH_E2E_PLATFORM_DESK is not set (packages/sdk/test/e2e/platformLogin.test.ts sets it)");
            return desk;
        }

        private static async Task<JsonValue> Fresh(string kind, string query)
        {
            using (var http = new HttpClient())
            {
                var text = await http.GetStringAsync(Desk() + "/" + kind + "?" + query).ConfigureAwait(false);
                return JsonParser.Parse(text).Get("credential");
            }
        }

        private static byte[] FromHex(string hex)
        {
            var bytes = new byte[hex.Length / 2];
            for (int i = 0; i < bytes.Length; i++) bytes[i] = byte.Parse(hex.Substring(i * 2, 2), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
            return bytes;
        }

        private static GameCenterSignature Signature(JsonValue credential)
        {
            return new GameCenterSignature
            {
                PublicKeyUrl = credential.Get("public_key_url").AsString,
                Signature = Convert.FromBase64String(credential.Get("signature").AsString),
                Salt = Convert.FromBase64String(credential.Get("salt").AsString),
                Timestamp = ulong.Parse(credential.Get("timestamp").NumberText, CultureInfo.InvariantCulture),
                TeamPlayerId = credential.Get("team_player_id").AsString,
                BundleId = credential.Get("bundle_id").AsString,
            };
        }

        private static DauthClient Client()
        {
            return new DauthClient(Environment.GetEnvironmentVariable("DAUTH_E2E_URL"), Environment.GetEnvironmentVariable("DAUTH_E2E_CLIENT_ID"));
        }

        private static async Task CreatedThenFound(Func<Task<FederatedLogin>> first, Func<Task<FederatedLogin>> again, string kind)
        {
            var a = await first();
            Assert.True(a.Created, kind + ": the first sign-in creates the account");
            var b = await again();
            Assert.Equal(false, b.Created);
            Assert.Equal(a.Session.Uuid, b.Session.Uuid);
        }

        public static void Register(TestRunner t)
        {
            string stamp = DateTime.UtcNow.Ticks.ToString(CultureInfo.InvariantCulture);

            t.Add("live-platform: Steam ticket signs in, then finds the account; a replayed ticket and a banned account are typed", async () =>
            {
                var dauth = Client();
                string query = "steamid=7656119" + stamp.Substring(stamp.Length - 10);
                var ticket = FromHex((await Fresh("steam_ticket", query)).Get("ticket").AsString);
                await CreatedThenFound(
                    () => dauth.SteamTicketLoginAsync("steam_ticket", ticket),
                    async () => await dauth.SteamTicketLoginAsync("steam_ticket", FromHex((await Fresh("steam_ticket", query)).Get("ticket").AsString)),
                    "steam_ticket");
                var replayed = await Assert.ThrowsAsync<PlatformRejectedException>(() => dauth.SteamTicketLoginAsync("steam_ticket", ticket));
                Assert.Equal(401, replayed.Status);
                var banned = FromHex((await Fresh("steam_ticket", "steamid=76561190000000003&banned")).Get("ticket").AsString);
                var refusal = await Assert.ThrowsAsync<PlatformBannedException>(() => dauth.SteamTicketLoginAsync("steam_ticket", banned));
                Assert.Equal(403, refusal.Status);
            });

            t.Add("live-platform: EOS ID token signs in, then finds the account; a replayed token is refused", async () =>
            {
                var dauth = Client();
                string query = "sub=cs" + stamp;
                var token = (await Fresh("epic", query)).Get("id_token").AsString;
                await CreatedThenFound(
                    () => dauth.EpicLoginAsync("epic", token),
                    async () => await dauth.EpicLoginAsync("epic", (await Fresh("epic", query)).Get("id_token").AsString),
                    "epic");
                await Assert.ThrowsAsync<PlatformRejectedException>(() => dauth.EpicLoginAsync("epic", token));
            });

            t.Add("live-platform: Game Center signature signs in, then finds the account; a replayed signature is refused", async () =>
            {
                var dauth = Client();
                string query = "team_player_id=T:_cs" + stamp;
                var signature = Signature(await Fresh("game_center", query));
                await CreatedThenFound(
                    () => dauth.GameCenterLoginAsync("game_center", signature),
                    async () => await dauth.GameCenterLoginAsync("game_center", Signature(await Fresh("game_center", query))),
                    "game_center");
                await Assert.ThrowsAsync<PlatformRejectedException>(() => dauth.GameCenterLoginAsync("game_center", signature));
            });

            t.Add("live-platform: Play Games server auth code signs in, then finds the account; a used code is refused", async () =>
            {
                var dauth = Client();
                string query = "player_id=cs" + stamp;
                var code = (await Fresh("google_play_games", query)).Get("server_auth_code").AsString;
                await CreatedThenFound(
                    () => dauth.GooglePlayGamesLoginAsync("google_play_games", code),
                    async () => await dauth.GooglePlayGamesLoginAsync("google_play_games", (await Fresh("google_play_games", query)).Get("server_auth_code").AsString),
                    "google_play_games");
                await Assert.ThrowsAsync<PlatformRejectedException>(() => dauth.GooglePlayGamesLoginAsync("google_play_games", code));
            });
        }
    }
}
