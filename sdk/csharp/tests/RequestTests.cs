using System;
using System.Collections.Generic;
using System.Numerics;
using System.Threading;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>
    /// What each call sends (method, path, headers, body) and reads back, against a recording
    /// transport: above all the calls whose server side is not on main yet (guest, federated-login,
    /// the device flow), built to decisions §8's interface.
    /// </summary>
    public static class RequestTests
    {
        private const string Base = "https://dauth.test/base";
        private static readonly PlayerSession Player = new PlayerSession("login-jwt", "1234567890123456789");

        private static DauthClient Client(FakeTransport transport) { return new DauthClient(Base, "game-client", transport); }

        private static void Sent(FakeTransport fake, string method, string pathAndQuery, string bearer)
        {
            Assert.Equal(method, fake.Last.Method);
            Assert.Equal("https://dauth.test/base/" + pathAndQuery, fake.Last.Url.AbsoluteUri);
            string authorization;
            fake.Last.Headers.TryGetValue("Authorization", out authorization);
            Assert.Equal(bearer == null ? null : "Bearer " + bearer, authorization, "Authorization");
        }

        private static string Field(FakeTransport fake, string name)
        {
            var value = fake.LastBody.Get(name);
            return value == null ? null : value.Kind == JsonKind.String ? value.AsString : value.ToString();
        }

        public static void Register(TestRunner t)
        {
            t.Add("request: sign-up, and login bound to the game's client_id", async () =>
            {
                var fake = new FakeTransport(201, "{\"success\":true,\"uuid\":\"42\"}");
                Assert.Equal("42", await Client(fake).SignUpAsync("p@example.com", "pw d\"x", "Neo"));
                Sent(fake, "POST", "v1/dev-user/register", null);
                Assert.Equal("application/json", fake.Last.ContentType);
                Assert.Equal("pw d\"x", Field(fake, "password"));
                Assert.Equal("Neo", Field(fake, "nickname"));
                fake = new FakeTransport(200, "{\"success\":true,\"token\":\"jwt\",\"uuid\":\"42\"}");
                var session = await Client(fake).LoginAsync("p@example.com", "pw");
                Sent(fake, "POST", "v1/dev-user/login_devuser", null);
                Assert.Equal("game-client", Field(fake, "client_id"));
                Assert.Equal("jwt", session.Token);
                Assert.Equal("42", session.Uuid);
                Assert.True(session.ToString().IndexOf("jwt", StringComparison.Ordinal) < 0, "ToString hides the token");
            });

            t.Add("request: guest create, login and upgrade (decisions §8)", async () =>
            {
                var fake = new FakeTransport(201, "{\"success\":true,\"token\":\"g-jwt\",\"uuid\":\"77\",\"guest_secret\":\"gs_secret\"}");
                var guest = await Client(fake).CreateGuestAsync();
                Sent(fake, "POST", "v1/dev-user/guest", null);
                Assert.Equal("{\"client_id\":\"game-client\"}", fake.Last.Body);
                Assert.Equal("77", guest.Session.Uuid);
                Assert.Equal("gs_secret", guest.GuestSecret);
                Assert.True(guest.ToString().IndexOf("gs_secret", StringComparison.Ordinal) < 0, "ToString hides the secret");

                fake = new FakeTransport(200, "{\"success\":true,\"token\":\"g-jwt2\",\"uuid\":\"77\"}");
                var again = await Client(fake).GuestLoginAsync("77", "gs_secret");
                Sent(fake, "POST", "v1/dev-user/guest/login", null);
                Assert.Equal("{\"uuid\":\"77\",\"guest_secret\":\"gs_secret\"}", fake.Last.Body);
                Assert.Equal("g-jwt2", again.Token);

                fake = new FakeTransport(200, "{\"success\":true,\"uuid\":\"77\"}");
                Assert.Equal("77", await Client(fake).UpgradeGuestAsync(again, "p@example.com", "long password", "Neo"));
                Sent(fake, "POST", "v1/dev-user/guest/upgrade", "g-jwt2");
                Assert.Equal("{\"email\":\"p@example.com\",\"password\":\"long password\",\"nickname\":\"Neo\"}", fake.Last.Body);

                fake = new FakeTransport(409, "{\"success\":false,\"error\":\"email_taken\",\"message\":\"taken\"}");
                var error = await Assert.ThrowsAsync<ConflictException>(() => Client(fake).UpgradeGuestAsync(again, "p@example.com", "long password"));
                Assert.Equal("email_taken", error.Code);
            });

            t.Add("request: native federated-login with the game's client_id", async () =>
            {
                var fake = new FakeTransport(200, "{\"success\":true,\"token\":\"f-jwt\",\"uuid\":\"9\",\"created\":true}");
                var login = await Client(fake).FederatedLoginAsync("apple", "eyJ.id.token");
                Sent(fake, "POST", "v1/dev-user/federated-login", null);
                Assert.Equal("{\"provider\":\"apple\",\"id_token\":\"eyJ.id.token\",\"client_id\":\"game-client\"}", fake.Last.Body);
                Assert.Equal(true, login.Created);
                Assert.Equal("f-jwt", login.Session.Token);
                fake = new FakeTransport(409, "{\"success\":false,\"error\":\"account_exists_link_required\",\"message\":\"link it\"}");
                await Assert.ThrowsAsync<AccountLinkRequiredException>(() => Client(fake).FederatedLoginAsync("google", "t"));
            });

            t.Add("request: device authorization and each poll outcome (RFC 8628)", async () =>
            {
                var fake = new FakeTransport(200, "{\"device_code\":\"dc\",\"user_code\":\"WDJB-MJHT\",\"verification_uri\":\"https://dauth.test/device\",\"verification_uri_complete\":\"https://dauth.test/device?user_code=WDJB-MJHT\",\"expires_in\":600,\"interval\":5}");
                var start = await Client(fake).StartDeviceAuthorizationAsync("openid profile");
                Sent(fake, "POST", "oauth/device_authorization", null);
                Assert.Equal("application/x-www-form-urlencoded", fake.Last.ContentType);
                Assert.Equal("client_id=game-client&scope=openid%20profile", fake.Last.Body);
                Assert.Equal("WDJB-MJHT", start.UserCode);
                Assert.Equal(5, start.Interval);
                Assert.Equal(600, start.ExpiresIn);

                Func<int, string, FakeTransport> oauth = (status, code) => new FakeTransport(status, "{\"error\":\"" + code + "\",\"error_description\":\"d\"}");
                fake = oauth(400, "authorization_pending");
                var poll = await Client(fake).PollDeviceTokenAsync("dc");
                Sent(fake, "POST", "oauth/token", null);
                Assert.Equal("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=dc&client_id=game-client", fake.Last.Body);
                Assert.True(poll.Tokens == null && !poll.SlowDown, "pending");
                poll = await Client(oauth(400, "slow_down")).PollDeviceTokenAsync("dc");
                Assert.True(poll.Tokens == null && poll.SlowDown, "slow down");
                await Assert.ThrowsAsync<DeviceAccessDeniedException>(() => Client(oauth(400, "access_denied")).PollDeviceTokenAsync("dc"));
                await Assert.ThrowsAsync<DeviceCodeExpiredException>(() => Client(oauth(400, "expired_token")).PollDeviceTokenAsync("dc"));
                var invalid = await Assert.ThrowsAsync<InvalidRequestException>(() => Client(oauth(400, "invalid_grant")).PollDeviceTokenAsync("dc"));
                Assert.Equal("invalid_grant", invalid.Code);

                // Pending once, then the tokens: WaitForDeviceTokenAsync polls at the interval.
                int polls = 0;
                fake = new FakeTransport(request => ++polls < 2
                    ? new DauthHttpResponse(400, "{\"error\":\"authorization_pending\"}")
                    : new DauthHttpResponse(200, "{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"refresh_token\":\"rt\",\"scope\":\"openid\"}"));
                var began = DateTime.UtcNow;
                var tokens = await Client(fake).WaitForDeviceTokenAsync(new DeviceAuthorization { DeviceCode = "dc", ExpiresIn = 60, Interval = 1 });
                Assert.Equal("at", tokens.AccessToken);
                Assert.Equal(3600, tokens.ExpiresIn.Value);
                Assert.Equal(2, polls);
                Assert.True(DateTime.UtcNow - began >= TimeSpan.FromSeconds(1.9), "waited an interval before each poll");

                // Cancelling the wait ends it at once.
                using (var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(200)))
                {
                    await Assert.ThrowsAsync<OperationCanceledException>(() => Client(oauth(400, "authorization_pending"))
                        .WaitForDeviceTokenAsync(new DeviceAuthorization { DeviceCode = "dc", ExpiresIn = 60, Interval = 30 }, cancel.Token));
                }
            });

            t.Add("request: the device calls can go through the game backend's relay (dauth has no public clients)", async () =>
            {
                var fake = new FakeTransport(request => request.Url.AbsolutePath.EndsWith("/device/start", StringComparison.Ordinal)
                    ? new DauthHttpResponse(200, "{\"device_code\":\"dc\",\"user_code\":\"BCDF-GHJK\",\"verification_uri\":\"https://dauth.test/device\",\"expires_in\":600}")
                    : new DauthHttpResponse(200, "{\"success\":true,\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":3600,\"user_id\":\"42\"}"));
                var client = Client(fake);
                Assert.Equal("https://dauth.test/base/oauth/device_authorization", client.DeviceAuthorizationEndpoint.AbsoluteUri);
                Assert.Equal("https://dauth.test/base/oauth/token", client.DeviceTokenEndpoint.AbsoluteUri);
                client.DeviceAuthorizationEndpoint = new Uri("https://game.test/device/start");
                client.DeviceTokenEndpoint = new Uri("https://game.test/device/token");
                var start = await client.StartDeviceAuthorizationAsync();
                Assert.Equal("https://game.test/device/start", fake.Last.Url.AbsoluteUri);
                Assert.Equal("client_id=game-client", fake.Last.Body);
                Assert.Equal(5, start.Interval);
                var poll = await client.PollDeviceTokenAsync(start.DeviceCode);
                Assert.Equal("https://game.test/device/token", fake.Last.Url.AbsoluteUri);
                Assert.Equal("42", poll.Tokens.UserId);
            });

            t.Add("request: device approve and deny from a companion app", async () =>
            {
                var fake = new FakeTransport(200, "{\"success\":true}");
                await Client(fake).ApproveDeviceAsync(Player, "WDJB-MJHT");
                Sent(fake, "POST", "v1/device/approve", "login-jwt");
                Assert.Equal("{\"user_code\":\"WDJB-MJHT\"}", fake.Last.Body);
                await Client(fake).DenyDeviceAsync(Player, "WDJB-MJHT");
                Sent(fake, "POST", "v1/device/deny", "login-jwt");
            });

            t.Add("request: PIN register sends pin_hash of a fresh salt (never the PIN) and user_uuid as an exact number", async () =>
            {
                var fake = new FakeTransport(200, "{\"success\":true,\"data\":[{\"address\":\"0xabc\",\"mnemonic\":\"00ff\",\"key_share_user\":\"" + new string('a', 64) + "\"}]}");
                var registration = await Client(fake).RegisterPinAsync(Player, "123456");
                Sent(fake, "POST", "v1/pin/register", "login-jwt");
                var body = fake.LastBody;
                Assert.Equal("1234567890123456789", body.Get("user_uuid").NumberText);
                Assert.True(fake.Last.Body.IndexOf("\"user_uuid\":1234567890123456789,", StringComparison.Ordinal) >= 0, "a JSON number on the wire");
                Assert.True(fake.Last.Body.IndexOf("123456\"", StringComparison.Ordinal) < 0, "the PIN is not sent");
                string salt = body.Get("pin_salt").AsString;
                Assert.Equal(PinCrypto.PinHash("123456", salt), body.Get("pin_hash").AsString);
                Assert.Equal(3, body.Members.Count);
                Assert.Equal(salt, registration.Credentials.PinSalt);
                Assert.Equal(new string('a', 64), registration.Credentials.KeyShareUser);
                Assert.Equal("0xabc", registration.Address);
                await Assert.ThrowsAsync<ArgumentException>(() => Client(fake).RegisterPinAsync(Player, "12345"));
                Assert.Equal(1, fake.Requests.Count);
            });

            t.Add("request: PIN verify, content purchase and token transfer carry the PIN trio", async () =>
            {
                var pin = PinCredentials.FromPin("123456", new string('1', 64), new string('2', 64));
                var fake = new FakeTransport(200, "{\"success\":true,\"user_op_hash\":\"0xop\",\"tx_hash\":\"0xtx\"}");
                var verified = await Client(fake).VerifyPinAsync(Player, pin, new[] { new WalletCall("0xto", BigInteger.Parse("10000000000000000000"), null) });
                Sent(fake, "POST", "v1/pin/verify", "login-jwt");
                Assert.Equal("{\"user_uuid\":1234567890123456789,\"pin_hash\":\"" + pin.PinHash + "\",\"pin_salt\":\"" + pin.PinSalt
                    + "\",\"key_share_user\":\"" + pin.KeyShareUser + "\",\"calls\":[{\"to\":\"0xto\",\"value\":\"10000000000000000000\",\"data\":\"0x\"}]}", fake.Last.Body);
                Assert.Equal("0xtx", verified.TxHash);

                fake = new FakeTransport(200, "{\"success\":true,\"tx_hash\":\"0xbuy\",\"token_amount\":\"100000\",\"native_paid\":\"100000\",\"platform_fee\":\"15000\",\"provider_received\":\"85000\"}");
                var bought = await Client(fake).BuyContentAsync(Player, SlotId.Parse("9999999999999999999"), "cuid-1", "100000", pin);
                Sent(fake, "POST", "v1/development-api/user_buy_content_token", "login-jwt");
                Assert.Equal("{\"client_id\":\"game-client\",\"user_dbkey\":\"9999999999999999999\",\"amount\":\"100000\",\"cuid\":\"cuid-1\",\"pin_hash\":\""
                    + pin.PinHash + "\",\"pin_salt\":\"" + pin.PinSalt + "\",\"key_share_user\":\"" + pin.KeyShareUser + "\"}", fake.Last.Body);
                Assert.Equal(new BigInteger(85000), bought.ProviderReceived);

                fake = new FakeTransport(200, "{\"success\":true,\"transaction_hash\":\"0xt\",\"user_op_hash\":\"0xo\",\"from_address\":\"0xf\",\"to_address\":\"0xd\",\"amount\":\"123456789012345678901234567890\",\"contract_address\":\"0xc\"}");
                var sent = await Client(fake).TransferTokenAsync(Player, "0xf", "0xd", BigInteger.Parse("123456789012345678901234567890"), "0xc", pin);
                Sent(fake, "POST", "v1/token/transfer", "login-jwt");
                Assert.Equal("123456789012345678901234567890", Field(fake, "amount"));
                Assert.Equal(pin.KeyShareUser, Field(fake, "key_share_user"));
                Assert.Equal(BigInteger.Parse("123456789012345678901234567890"), sent.Amount);
                Assert.Equal("0xt", sent.TransactionHash);
            });

            t.Add("request: wallet, slots (19-digit ids as numbers or strings), balance and status updates", async () =>
            {
                var fake = new FakeTransport(200, "{\"success\":true,\"address\":\"0xw\",\"native_balance\":\"10000000000000000000\",\"token_balance\":null}");
                var wallet = await Client(fake).GetWalletAsync(Player);
                Sent(fake, "GET", "v1/dev-user/wallet", "login-jwt");
                Assert.Equal(null, fake.Last.Body);
                Assert.Equal(BigInteger.Parse("10000000000000000000"), wallet.NativeBalance.Value);
                Assert.True(wallet.TokenBalance == null, "null balance");

                fake = new FakeTransport(200, "{\"success\":true,\"slots\":[{\"slot_id\":9999999999999999999,\"client_id\":\"game-client\",\"app_name\":null,\"content_address\":\"0xs\",\"balances\":[{\"cuid\":\"c\",\"balance\":\"5\",\"used\":\"1\"}]},{\"slot_id\":\"1234567890123456789\",\"client_id\":\"other\",\"app_name\":\"Other\",\"content_address\":\"0xt\",\"balances\":[]}]}");
                var slots = await Client(fake).GetSlotsAsync(Player);
                Sent(fake, "GET", "v1/dev-user/slots", "login-jwt");
                Assert.Equal("9999999999999999999", slots[0].SlotId.Digits);
                Assert.Equal("1234567890123456789", slots[1].SlotId.Digits);
                Assert.Equal(new BigInteger(5), slots[0].Balances[0].Balance);

                fake = new FakeTransport(200, "{\"success\":true,\"slot\":\"0xs\",\"balance\":\"5\",\"used_balances\":\"1\",\"cuid\":\"c d\"}");
                var balance = await Client(fake).GetSlotBalanceAsync("0xs", "c d");
                Sent(fake, "GET", "v1/development-api/balance_adex/0xs?cuid=c%20d", null);
                Assert.Equal(new BigInteger(1), balance.Used);

                fake = new FakeTransport(200, "{\"success\":true,\"message\":\"Logout status updated\",\"user_id\":\"42\",\"status\":\"logged_out\",\"transfer_enabled\":true,\"timestamp\":\"2026-01-01T00:00:00Z\"}");
                var status = await Client(fake).ReportLogoutAsync("access-token", "42");
                Sent(fake, "POST", "v1/oauth/status/logout", "access-token");
                Assert.Equal("{\"user_id\":\"42\",\"client_id\":\"game-client\"}", fake.Last.Body);
                Assert.Equal(true, status.TransferEnabled);
                await Client(fake).ReportLoginAsync("access-token", "42");
                Sent(fake, "POST", "v1/oauth/status/login", "access-token");
                await Client(fake).CheckStatusAsync("access-token", "42");
                Sent(fake, "GET", "v1/oauth/status/check?user_id=42&client_id=game-client", "access-token");
            });

            t.Add("request: identities listed, linked by id_token and unlinked (never the last way in)", async () =>
            {
                const string identity = "{\"id\":\"idn/1\",\"provider\":\"google\",\"provider_name\":\"Google\",\"subject\":\"g-77\",\"email\":null,\"created_at\":\"2026-11-26T12:00:00.000Z\"}";
                var fake = new FakeTransport(200, "{\"identities\":[" + identity + ",{\"id\":12,\"provider\":\"steam\",\"subject\":\"7656\",\"created_at\":\"t\"}]}");
                var identities = await Client(fake).ListIdentitiesAsync(Player);
                Sent(fake, "GET", "v1/dev-user/identities", "login-jwt");
                Assert.Equal(2, identities.Count);
                Assert.Equal("idn/1", identities[0].Id);
                Assert.Equal("Google", identities[0].ProviderName);
                Assert.Equal(null, identities[0].Email);
                Assert.Equal("12", identities[1].Id, "a numeric id keeps its digits");
                Assert.Equal("steam", identities[1].ProviderName, "the provider id when no name came");

                fake = new FakeTransport(201, identity);
                var linked = await Client(fake).LinkIdentityAsync(Player, "google", "eyJ.id.token");
                Sent(fake, "POST", "v1/dev-user/identities", "login-jwt");
                Assert.Equal("{\"provider\":\"google\",\"id_token\":\"eyJ.id.token\"}", fake.Last.Body);
                Assert.Equal("g-77", linked.Subject);
                fake = new FakeTransport(409, "{\"success\":false,\"error\":\"identity_in_use\",\"message\":\"linked elsewhere\"}");
                var inUse = await Assert.ThrowsAsync<ConflictException>(() => Client(fake).LinkIdentityAsync(Player, "google", "t"));
                Assert.Equal("identity_in_use", inUse.Code);
                fake = new FakeTransport(401, "{\"success\":false,\"error\":\"invalid_id_token\",\"message\":\"bad aud\"}");
                await Assert.ThrowsAsync<InvalidIdTokenException>(() => Client(fake).LinkIdentityAsync(Player, "google", "t"));
                await Assert.ThrowsAsync<InvalidIdTokenException>(() => Client(fake).FederatedLoginAsync("google", "t"));

                fake = new FakeTransport(200, "{\"success\":true}");
                await Client(fake).UnlinkIdentityAsync(Player, "idn/1");
                Sent(fake, "DELETE", "v1/dev-user/identities/idn%2F1", "login-jwt");
                Assert.Equal(null, fake.Last.Body);
                fake = new FakeTransport(409, "{\"success\":false,\"error\":\"last_sign_in_method\",\"message\":\"last way in\"}");
                var last = await Assert.ThrowsAsync<LastSignInMethodException>(() => Client(fake).UnlinkIdentityAsync(Player, "idn/1"));
                Assert.Equal(409, last.Status);

                // Ways in change only with a console JWT (decisions §9): the game's own JWT is refused.
                fake = new FakeTransport(403, "{\"success\":false,\"error\":\"first_party_required\",\"message\":\"use the console\"}");
                var linkRefused = await Assert.ThrowsAsync<FirstPartyRequiredException>(() => Client(fake).LinkIdentityAsync(Player, "google", "t"));
                Assert.Equal(403, linkRefused.Status);
                Assert.Equal(ErrorCodes.FirstPartyRequired, linkRefused.Code);
                Assert.True(typeof(ForbiddenException).IsAssignableFrom(linkRefused.GetType()), "a ForbiddenException");
                await Assert.ThrowsAsync<FirstPartyRequiredException>(() => Client(fake).UnlinkIdentityAsync(Player, "idn/1"));
                fake = new FakeTransport(401, "{\"success\":false,\"error\":\"id_token_replayed\",\"message\":\"used already\"}");
                var replayed = await Assert.ThrowsAsync<IdTokenReplayedException>(() => Client(fake).FederatedLoginAsync("google", "t"));
                Assert.Equal(401, replayed.Status);
                Assert.Equal(ErrorCodes.IdTokenReplayed, replayed.Code);
                Assert.True(typeof(AuthenticationException).IsAssignableFrom(replayed.GetType()), "an AuthenticationException");
                await Assert.ThrowsAsync<IdTokenReplayedException>(() => Client(fake).LinkIdentityAsync(Player, "google", "t"));
            });

            t.Add("request: session keys granted with the PIN trio, listed with today's spend, revoked without the PIN", async () =>
            {
                const string policy = "{\"calls\":[{\"to\":\"0x00000000000000000000000000000000000000A1\",\"selectors\":[\"0xa9059cbb\"]}],\"max_value_per_call_wei\":\"1000000000000000000\",\"max_value_per_day_wei\":\"340282366920938463463374607431768211455\",\"token_limits\":[{\"token\":\"0x00000000000000000000000000000000000000A1\",\"per_day\":\"100000000000000000000\"}],\"valid_for_seconds\":2592000}";
                var fake = new FakeTransport(201, "{\"session_key\":\"0xkey\",\"valid_until\":\"2026-12-24T00:00:00.000Z\",\"policy\":" + policy + ",\"user_op_hash\":\"0xop\",\"tx_hash\":\"0xtx\"}");
                var pin = new PinCredentials(new string('a', 64), new string('b', 64), new string('c', 64));
                var grant = await Client(fake).GrantSessionKeyAsync(Player, pin);
                Sent(fake, "POST", "v1/wallet/session-keys", "login-jwt");
                Assert.Equal("game-client", Field(fake, "client_id"));
                Assert.Equal(new string('a', 64), Field(fake, "pin_hash"));
                Assert.Equal(new string('b', 64), Field(fake, "pin_salt"));
                Assert.Equal(new string('c', 64), Field(fake, "key_share_user"));
                Assert.Equal("game-client", grant.ClientId);
                Assert.Equal("0xkey", grant.SessionKey);
                Assert.Equal("0xop", grant.UserOpHash);
                Assert.Equal(null, grant.SpentTodayWei);
                Assert.Equal(BigInteger.Parse("340282366920938463463374607431768211455"), grant.Policy.MaxValuePerDayWei, "a uint128 cap, exact");
                Assert.Equal("0xa9059cbb", grant.Policy.Calls[0].Selectors[0]);
                Assert.Equal(BigInteger.Parse("100000000000000000000"), grant.Policy.TokenLimitsPerDay[0].Amount);
                Assert.Equal(2592000L, grant.Policy.ValidForSeconds);

                fake = new FakeTransport(200, "{\"session_keys\":[{\"client_id\":\"game-client\",\"client_name\":\"Gem Quest\",\"session_key\":\"0xkey\",\"valid_until\":\"2026-12-24T00:00:00.000Z\",\"policy\":" + policy
                    + ",\"spent_today\":{\"value_wei\":\"5\",\"tokens\":[{\"token\":\"0x00000000000000000000000000000000000000A1\",\"amount\":\"7\"}]},\"created_at\":\"2026-11-24T00:00:00.000Z\",\"tx_hash\":null}]}");
                var keys = await Client(fake).GetSessionKeysAsync(Player);
                Sent(fake, "GET", "v1/wallet/session-keys", "login-jwt");
                Assert.Equal("Gem Quest", keys[0].ClientName);
                Assert.Equal(new BigInteger(5), keys[0].SpentTodayWei.Value);
                Assert.Equal(new BigInteger(7), keys[0].SpentTodayTokens[0].Amount);
                Assert.Equal(null, keys[0].TxHash);

                fake = new FakeTransport(200, "{\"success\":true,\"tx_hash\":\"0xrevoke\"}");
                Assert.Equal("0xrevoke", await Client(fake).RevokeSessionKeyAsync(Player));
                Sent(fake, "DELETE", "v1/wallet/session-keys/game-client", "login-jwt");
                await Client(fake).RevokeSessionKeyAsync(Player, "other app");
                Sent(fake, "DELETE", "v1/wallet/session-keys/other%20app", "login-jwt");
                fake = new FakeTransport(404, "{\"success\":false,\"error\":\"session_key_not_found\",\"message\":\"none\"}");
                var none = await Assert.ThrowsAsync<NotFoundException>(() => Client(fake).RevokeSessionKeyAsync(Player));
                Assert.Equal(ErrorCodes.SessionKeyNotFound, none.Code);
            });

            t.Add("request: a token cancelled before the call sends nothing", async () =>
            {
                var fake = new FakeTransport(200, "{}");
                await Assert.ThrowsAsync<OperationCanceledException>(() => Client(fake).LoginAsync("a@b.c", "pw", new CancellationToken(true)));
                Assert.Equal(0, fake.Requests.Count);
                Assert.Throws<ArgumentException>(() => new DauthClient("ftp://x", "c"));
                Assert.Throws<ArgumentException>(() => new DauthClient("https://x", ""));
            });
        }
    }
}
