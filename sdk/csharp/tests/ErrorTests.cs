using System;
using System.Collections.Generic;
using System.IO;
using System.Text.RegularExpressions;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>Each error code of docs/errors.md surfaces as a DauthException carrying it, typed by its code and status.</summary>
    public static class ErrorTests
    {
        private static readonly PlayerSession Player = new PlayerSession("jwt", "7");

        private static async Task<DauthException> Fail(int status, string body, string retryAfter = null)
        {
            var client = new DauthClient("http://dauth.test", "game", new FakeTransport(status, body, retryAfter));
            return await Assert.ThrowsAsync<DauthException>(() => client.GetWalletAsync(Player));
        }

        private static string Body(string code) { return "{\"success\":false,\"error\":\"" + code + "\",\"message\":\"m\"}"; }

        public static void Register(TestRunner t)
        {
            t.Add("errors: the player's common codes each surface as their own type", async () =>
            {
                var expected = new List<Tuple<string, int, Type>>
                {
                    Tuple.Create("invalid_credentials", 401, typeof(InvalidCredentialsException)),
                    Tuple.Create("invalid_token", 401, typeof(TokenRejectedException)),
                    Tuple.Create("expired_token", 401, typeof(TokenRejectedException)),
                    Tuple.Create("missing_token", 401, typeof(TokenRejectedException)),
                    Tuple.Create("invalid_pin", 401, typeof(InvalidPinException)),
                    Tuple.Create("pin_required", 401, typeof(PinRequiredException)),
                    Tuple.Create("pin_locked", 423, typeof(PinLockedException)),
                    Tuple.Create("account_exists_link_required", 409, typeof(AccountLinkRequiredException)),
                    Tuple.Create("invalid_id_token", 401, typeof(InvalidIdTokenException)),
                    Tuple.Create("last_sign_in_method", 409, typeof(LastSignInMethodException)),
                    Tuple.Create("first_party_required", 403, typeof(FirstPartyRequiredException)),
                    Tuple.Create("id_token_replayed", 401, typeof(IdTokenReplayedException)),
                    Tuple.Create("platform_rejected", 401, typeof(PlatformRejectedException)),
                    Tuple.Create("platform_banned", 403, typeof(PlatformBannedException)),
                    Tuple.Create("identity_in_use", 409, typeof(ConflictException)),
                    Tuple.Create("email_taken", 409, typeof(ConflictException)),
                    Tuple.Create("wallet_exists", 409, typeof(ConflictException)),
                    Tuple.Create("insufficient_funds", 409, typeof(ConflictException)),
                    Tuple.Create("weak_password", 400, typeof(InvalidRequestException)),
                    Tuple.Create("not_your_wallet", 403, typeof(ForbiddenException)),
                    Tuple.Create("client_mismatch", 401, typeof(AuthenticationException)),
                    Tuple.Create("slot_not_found", 404, typeof(NotFoundException)),
                    Tuple.Create("rate_limited", 429, typeof(RateLimitedException)),
                    Tuple.Create("sponsorship_quota_exceeded", 429, typeof(RateLimitedException)),
                    Tuple.Create("chain_unavailable", 503, typeof(ServiceUnavailableException)),
                    Tuple.Create("overloaded", 503, typeof(ServiceUnavailableException)),
                };
                foreach (var row in expected)
                {
                    var error = await Fail(row.Item2, Body(row.Item1));
                    Assert.Equal(row.Item3, error.GetType(), row.Item1);
                    Assert.Equal(row.Item1, error.Code);
                    Assert.Equal(row.Item2, error.Status);
                    Assert.Equal("m", error.Message);
                }
            });

            t.Add("errors: every code in docs/errors.md keeps its code and status, typed by status", async () =>
            {
                var doc = File.ReadAllText(Path.Combine(TestRunner.SdkDir, "..", "docs", "errors.md"));
                var rows = Regex.Matches(doc, @"^\| `([a-z_]+)` +\| ([0-9]{3}) ", RegexOptions.Multiline);
                Assert.True(rows.Count > 80, "docs/errors.md rows read: " + rows.Count);
                foreach (Match row in rows)
                {
                    string code = row.Groups[1].Value;
                    int status = int.Parse(row.Groups[2].Value);
                    var error = await Fail(status, Body(code));
                    Assert.Equal(code, error.Code);
                    Assert.Equal(status, error.Status);
                    // The device grant's refusal is typed by its code: a 400 by RFC 8628, the player's "no".
                    Type family = code == ErrorCodes.AccessDenied ? typeof(DeviceAccessDeniedException)
                        : status == 429 ? typeof(RateLimitedException)
                        : status == 400 || status == 413 || status == 415 || status == 422 ? typeof(InvalidRequestException)
                        : status == 401 ? typeof(AuthenticationException)
                        : status == 403 ? typeof(ForbiddenException)
                        : status == 404 ? typeof(NotFoundException)
                        : status == 409 ? typeof(ConflictException)
                        : status == 423 ? typeof(PinLockedException)
                        : typeof(ServiceUnavailableException);
                    Assert.True(family.IsAssignableFrom(error.GetType()), code + " is a " + family.Name + ", got " + error.GetType().Name);
                }
            });

            t.Add("errors: field, Retry-After, RFC 6749 bodies and non-JSON answers", async () =>
            {
                var bad = await Fail(400, "{\"success\":false,\"error\":\"invalid_request\",\"message\":\"body/email must be string\",\"field\":\"email\"}");
                Assert.Equal("email", bad.Field);
                var limited = await Fail(429, Body("rate_limited"), "17");
                Assert.Equal(17, limited.RetryAfterSeconds.Value);
                var oauth = await Fail(400, "{\"error\":\"invalid_grant\",\"error_description\":\"the code is used\"}");
                Assert.Equal("invalid_grant", oauth.Code);
                Assert.Equal("the code is used", oauth.Message);
                var proxy = await Fail(502, "<html>Bad Gateway</html>");
                Assert.Equal(typeof(ServiceUnavailableException), proxy.GetType());
                Assert.Equal("http_502", proxy.Code);
                var garbled = await Assert.ThrowsAsync<MalformedResponseException>(() =>
                    new DauthClient("http://dauth.test", "game", new FakeTransport(200, "{\"address\":")).GetWalletAsync(Player));
                Assert.Equal(ErrorCodes.MalformedResponse, garbled.Code);
                await Assert.ThrowsAsync<MalformedResponseException>(() =>
                    new DauthClient("http://dauth.test", "game", new FakeTransport(200, "{\"success\":true,\"token\":\"t\",\"uuid\":1.5}"))
                        .LoginAsync("a@b.c", "pw"));
                await Assert.ThrowsAsync<MalformedResponseException>(() =>
                    new DauthClient("http://dauth.test", "game", new FakeTransport(200, "{\"success\":true,\"address\":null,\"native_balance\":\"-1\",\"token_balance\":null}"))
                        .GetWalletAsync(Player));
            });
        }
    }
}
