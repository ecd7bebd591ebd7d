using System;
using System.Linq;
using System.Numerics;
using System.Text;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>
    /// The player's journeys against a live dauth on the embedded chain. packages/sdk/test/e2e/csharpLive.test.ts
    /// starts the server and a game backend (the TypeScript SDK's flow: authorize, callback, get_token)
    /// and runs these with DAUTH_E2E_*; without DAUTH_E2E_URL they skip.
    /// </summary>
    public static class LiveTests
    {
        private const string Pin = "123456";

        private sealed class Env
        {
            public string Url = Get("DAUTH_E2E_URL");
            public string ClientId = Get("DAUTH_E2E_CLIENT_ID");
            public string Backend = Get("DAUTH_E2E_GAME_BACKEND");
            public string Cuid = Get("DAUTH_E2E_CUID");
            public string TokenContract = Get("DAUTH_E2E_TOKEN_CONTRACT");

            private static string Get(string name)
            {
                var value = Environment.GetEnvironmentVariable(name);
                if (string.IsNullOrEmpty(value)) throw new Exception(name + " must be set with DAUTH_E2E_URL");
                return value;
            }
        }

        private static Env Live()
        {
            if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable("DAUTH_E2E_URL")))
                throw new SkipException("DAUTH_E2E_URL is not set (packages/sdk/test/e2e/csharpLive.test.ts sets it)");
            return new Env();
        }

        private static string NewEmail(string label)
        {
            return label + "-" + Guid.NewGuid().ToString("N").Substring(0, 12) + "@example.com";
        }

        /// <summary>What the game backend answers for the player's login JWT: the slot of this game (via get_token).</summary>
        private sealed class BackendSlot
        {
            public SlotId SlotId;
            public string RawSlotIdJson;
            public string AccessToken;
            public string UserId;
        }

        private static async Task<JsonValue> CallBackend(HttpClientTransport http, Env env, string path, JsonObjectBuilder body)
        {
            var answer = await http.SendAsync(new DauthHttpRequest("POST", new Uri(new Uri(env.Backend), path), null, body.ToString(), "application/json"),
                default(System.Threading.CancellationToken));
            if (answer.Status != 200) throw new Exception("game backend " + path + ": " + answer.Status + " " + answer.Body);
            return JsonParser.Parse(answer.Body);
        }

        private static async Task<BackendSlot> SlotViaBackend(HttpClientTransport http, Env env, PlayerSession player)
        {
            var json = await CallBackend(http, env, "/game/session", new JsonObjectBuilder().Add("jwt", player.Token));
            return new BackendSlot
            {
                SlotId = SlotId.FromJson(json.Get("slot_id")),
                RawSlotIdJson = json.Get("slot_id").ToString(),
                AccessToken = json.Get("access_token").AsString,
                UserId = json.Get("user_id").AsString,
            };
        }

        private static Task Fund(HttpClientTransport http, Env env, string address)
        {
            return CallBackend(http, env, "/game/fund", new JsonObjectBuilder().Add("address", address));
        }

        /// <summary>The claims of a JWT (no verification: the test reads what the service put there).</summary>
        private static JsonValue Claims(string jwt)
        {
            var part = jwt.Split('.')[1].Replace('-', '+').Replace('_', '/');
            part = part.PadRight(part.Length + (4 - part.Length % 4) % 4, '=');
            return JsonParser.Parse(Encoding.UTF8.GetString(Convert.FromBase64String(part)));
        }

        public static void Register(TestRunner t)
        {
            t.Add("live: e-mail sign-up and login -> PIN -> slot via the game backend -> purchase -> balances -> status -> transfer", async () =>
            {
                var env = Live();
                using (var http = new HttpClientTransport())
                {
                    var dauth = new DauthClient(env.Url, env.ClientId, http);
                    var email = NewEmail("csharp");
                    var uuid = await dauth.SignUpAsync(email, "correct horse battery", "CsPlayer");
                    var player = await dauth.LoginAsync(email, "correct horse battery");
                    Assert.Equal(uuid, player.Uuid);
                    var azp = Claims(player.Token).Get("azp");
                    if (azp != null) Assert.Equal(env.ClientId, azp.AsString, "the login JWT is bound to the game (azp)");

                    // Typed errors from the real service.
                    var wrong = await Assert.ThrowsAsync<InvalidCredentialsException>(() => dauth.LoginAsync(email, "not the password"));
                    Assert.Equal(401, wrong.Status);
                    var taken = await Assert.ThrowsAsync<ConflictException>(() => dauth.SignUpAsync(email, "correct horse battery"));
                    Assert.Equal(ErrorCodes.EmailTaken, taken.Code);
                    var rejected = await Assert.ThrowsAsync<TokenRejectedException>(() => dauth.GetWalletAsync(new PlayerSession(player.Token + "x", uuid)));
                    Assert.Equal(401, rejected.Status);

                    Assert.Equal(null, (await dauth.GetWalletAsync(player)).Address, "no wallet before the PIN");
                    var registration = await dauth.RegisterPinAsync(player, Pin);
                    Assert.Equal(12, PinCrypto.DecryptMnemonic(registration.MnemonicEncrypted, registration.Credentials.PinHash).Split(' ').Length);
                    var again = await Assert.ThrowsAsync<ConflictException>(() => dauth.RegisterPinAsync(player, Pin));
                    Assert.Equal(409, again.Status);
                    var pin = PinCredentials.FromPin(Pin, registration.Credentials.PinSalt, registration.Credentials.KeyShareUser);
                    Assert.Equal(registration.Address.ToLowerInvariant(), (await dauth.VerifyPinAsync(player, pin)).Address.ToLowerInvariant());
                    var badPin = PinCredentials.FromPin("654321", pin.PinSalt, pin.KeyShareUser);
                    var invalidPin = await Assert.ThrowsAsync<InvalidPinException>(() => dauth.VerifyPinAsync(player, badPin));
                    Assert.Equal(ErrorCodes.InvalidPin, invalidPin.Code);

                    await Fund(http, env, registration.Address);
                    var wallet = await dauth.GetWalletAsync(player);
                    Assert.Equal(registration.Address.ToLowerInvariant(), wallet.Address.ToLowerInvariant());
                    Assert.True(wallet.NativeBalance.Value > 0 && wallet.TokenBalance.Value > 0, "funded");

                    // The game backend turns the login JWT into the slot (authorize, callback, get_token).
                    var slot = await SlotViaBackend(http, env, player);
                    Assert.Equal(19, slot.SlotId.Digits.Length, "a 19-digit id");
                    Assert.Equal(slot.SlotId.Digits, slot.RawSlotIdJson, "sent as a raw JSON number");
                    Assert.True(slot.SlotId.ToBigInteger() > new BigInteger(9007199254740992), "beyond 2^53");
                    var mine = (await dauth.GetSlotsAsync(player)).Single(s => s.ClientId == env.ClientId);
                    Assert.Equal(slot.SlotId, mine.SlotId, "the backend's id and the player's slot list agree digit for digit");

                    // The id goes back as user_dbkey: a rounded id would name another slot.
                    var bought = await dauth.BuyContentAsync(player, mine.SlotId, env.Cuid, "100000", pin);
                    Assert.Equal(new BigInteger(100000), bought.TokenAmount);
                    Assert.Equal(new BigInteger(100000), bought.NativePaid);
                    Assert.Equal(new BigInteger(15000), bought.PlatformFee);
                    Assert.Equal(new BigInteger(85000), bought.ProviderReceived);
                    Assert.True(bought.TxHash.StartsWith("0x", StringComparison.Ordinal), "tx hash");
                    var balance = (await dauth.GetSlotsAsync(player)).Single(s => s.ClientId == env.ClientId).Balances.Single(b => b.Cuid == env.Cuid);
                    Assert.Equal(new BigInteger(100000), balance.Balance);
                    Assert.Equal(BigInteger.Zero, balance.Used);
                    var adex = await dauth.GetSlotBalanceAsync(mine.ContentAddress, env.Cuid);
                    Assert.Equal(new BigInteger(100000), adex.Balance);
                    Assert.Equal(BigInteger.Zero, adex.Used);
                    var wrongPin = await Assert.ThrowsAsync<InvalidPinException>(() => dauth.BuyContentAsync(player, mine.SlotId, env.Cuid, "1", badPin));
                    Assert.Equal(401, wrongPin.Status);

                    // Status updates with the app's access token for this player.
                    var loggedIn = await dauth.ReportLoginAsync(slot.AccessToken, slot.UserId);
                    Assert.Equal("logged_in", loggedIn.Status);
                    Assert.Equal(false, loggedIn.TransferEnabled);
                    var loggedOut = await dauth.ReportLogoutAsync(slot.AccessToken, slot.UserId);
                    Assert.Equal("logged_out", loggedOut.Status);
                    Assert.Equal(true, loggedOut.TransferEnabled);
                    Assert.Equal("logged_out", (await dauth.CheckStatusAsync(slot.AccessToken, slot.UserId)).Status);
                    await Assert.ThrowsAsync<AuthenticationException>(() => dauth.ReportLoginAsync(player.Token + "x", slot.UserId));

                    // An ERC-20 transfer from the main wallet.
                    var before = (await dauth.GetWalletAsync(player)).TokenBalance.Value;
                    var recipient = "0x00000000000000000000000000000000000c5a11";
                    var sent = await dauth.TransferTokenAsync(player, registration.Address, recipient, new BigInteger(1234), env.TokenContract, pin);
                    Assert.True(sent.TransactionHash.StartsWith("0x", StringComparison.Ordinal), "transaction hash");
                    Assert.Equal(new BigInteger(1234), sent.Amount);
                    Assert.Equal(before - 1234, (await dauth.GetWalletAsync(player)).TokenBalance.Value);
                    var notMine = await Assert.ThrowsAsync<DauthException>(() =>
                        dauth.TransferTokenAsync(player, recipient, registration.Address, BigInteger.One, env.TokenContract, pin));
                    Assert.Equal(403, notMine.Status);
                }
            });

            t.Add("live: guest -> PIN -> slot -> purchase -> upgrade keeps uuid, wallet and slot", async () =>
            {
                var env = Live();
                using (var http = new HttpClientTransport())
                {
                    var dauth = new DauthClient(env.Url, env.ClientId, http);
                    GuestAccount guest;
                    try
                    {
                        guest = await dauth.CreateGuestAsync();
                    }
                    catch (NotFoundException)
                    {
                        throw new SkipException("this dauth has no POST /v1/dev-user/guest yet (h/guest not merged)");
                    }
                    var relogin = await dauth.GuestLoginAsync(guest.Session.Uuid, guest.GuestSecret);
                    Assert.Equal(guest.Session.Uuid, relogin.Uuid);
                    var registration = await dauth.RegisterPinAsync(relogin, Pin);
                    await Fund(http, env, registration.Address);
                    var slot = await SlotViaBackend(http, env, relogin);
                    var bought = await dauth.BuyContentAsync(relogin, slot.SlotId, env.Cuid, "50000", registration.Credentials);
                    Assert.Equal(new BigInteger(50000), bought.TokenAmount);

                    var email = NewEmail("csharp-guest");
                    Assert.Equal(guest.Session.Uuid, await dauth.UpgradeGuestAsync(relogin, email, "correct horse battery", "Upgraded"));
                    await Assert.ThrowsAsync<AuthenticationException>(() => dauth.GuestLoginAsync(guest.Session.Uuid, guest.GuestSecret));
                    var full = await dauth.LoginAsync(email, "correct horse battery");
                    Assert.Equal(guest.Session.Uuid, full.Uuid);
                    Assert.Equal(registration.Address.ToLowerInvariant(), (await dauth.GetWalletAsync(full)).Address.ToLowerInvariant());
                    var kept = (await dauth.GetSlotsAsync(full)).Single(s => s.ClientId == env.ClientId);
                    Assert.Equal(slot.SlotId, kept.SlotId);
                    Assert.Equal(new BigInteger(50000), kept.Balances.Single(b => b.Cuid == env.Cuid).Balance);
                }
            });

            t.Add("live: device flow approved from a companion app", async () =>
            {
                var env = Live();
                using (var http = new HttpClientTransport())
                {
                    var dauth = new DauthClient(env.Url, env.ClientId, http);
                    // The game backend's relay adds the app's credentials (dauth has no public clients).
                    dauth.DeviceAuthorizationEndpoint = new Uri(new Uri(env.Backend), "/game/device_authorization");
                    dauth.DeviceTokenEndpoint = new Uri(new Uri(env.Backend), "/game/device_token");
                    DeviceAuthorization device;
                    try
                    {
                        device = await dauth.StartDeviceAuthorizationAsync();
                    }
                    catch (NotFoundException)
                    {
                        throw new SkipException("this dauth has no /oauth/device_authorization yet (h/device not merged)");
                    }
                    var poll = await dauth.PollDeviceTokenAsync(device.DeviceCode);
                    Assert.True(poll.Tokens == null, "pending before approval");
                    var email = NewEmail("csharp-device");
                    await dauth.SignUpAsync(email, "correct horse battery");
                    var companion = await dauth.LoginAsync(email, "correct horse battery");
                    await dauth.ApproveDeviceAsync(companion, device.UserCode);
                    device.Interval = Math.Min(device.Interval, 1);
                    var tokens = await dauth.WaitForDeviceTokenAsync(device);
                    Assert.True(!string.IsNullOrEmpty(tokens.AccessToken), "an access token");
                    if (tokens.UserId != null) Assert.Equal(companion.Uuid, tokens.UserId, "the approving player's tokens");
                    var again = await Assert.ThrowsAsync<DauthException>(() => dauth.PollDeviceTokenAsync(device.DeviceCode));
                    Assert.Equal("invalid_grant", again.Code, "a device code is single use");
                }
            });
        }
    }
}
