using System;
using System.Threading.Tasks;

namespace Dauth.Tests
{
    /// <summary>
    /// Sign-ins of an account with a second factor (docs/mfa.md) against a recording transport answering as
    /// the service does: the first step throws <see cref="MfaRequiredException"/>, never a session, and
    /// <see cref="DauthClient.LoginMfaAsync"/> is the second.
    /// </summary>
    public static class MfaTests
    {
        private const string Base = "https://dauth.test/base";
        private const string FirstStep =
            "{\"success\":true,\"mfa_required\":true,\"mfa_token\":\"mfa-secret-token\",\"methods\":[\"totp\",\"recovery_code\"],\"expires_in\":300";

        private static DauthClient Client(FakeTransport transport) { return new DauthClient(Base, "game-client", transport); }

        /// <summary>The service's two steps: a sign-in answers the first; login/mfa takes "123456" once, refuses others.</summary>
        private static FakeTransport TwoSteps(string firstStepExtra = "")
        {
            var used = false;
            var tries = 0;
            return new FakeTransport(request =>
            {
                if (!request.Url.AbsolutePath.EndsWith("/v1/dev-user/login/mfa", StringComparison.Ordinal))
                    return new DauthHttpResponse(200, FirstStep + firstStepExtra + "}", null);
                var body = JsonParser.Parse(request.Body);
                if (used || tries >= 5 || body.Get("mfa_token").AsString != "mfa-secret-token")
                    return new DauthHttpResponse(401, "{\"success\":false,\"error\":\"invalid_mfa_token\",\"message\":\"sign in again\"}", null);
                tries++;
                if (body.Get("code").AsString != "123456")
                    return new DauthHttpResponse(401, "{\"success\":false,\"error\":\"invalid_mfa_code\",\"message\":\"wrong code\"}", null);
                used = true;
                return new DauthHttpResponse(200, "{\"success\":true,\"token\":\"jwt-2fa\",\"uuid\":\"42\"}", null);
            });
        }

        public static void Register(TestRunner t)
        {
            t.Add("mfa: a password login of an account with TOTP throws MfaRequiredException; LoginMfaAsync gives the session", async () =>
            {
                var fake = TwoSteps();
                var required = await Assert.ThrowsAsync<MfaRequiredException>(() => Client(fake).LoginAsync("p@example.com", "pw"));
                Assert.Equal("mfa-secret-token", required.MfaToken);
                Assert.Equal("totp,recovery_code", string.Join(",", required.Methods));
                Assert.Equal(300, required.ExpiresInSeconds ?? 0);
                Assert.True(required.Created == null, "no created on a password sign-in");
                Assert.Equal(ErrorCodes.MfaRequired, required.Code);
                // The token is a capability: logging the exception must not print it.
                Assert.True(required.ToString().IndexOf("mfa-secret-token", StringComparison.Ordinal) < 0, "ToString hides the token");

                var session = await Client(fake).LoginMfaAsync(required.MfaToken, "123456");
                Assert.Equal("POST", fake.Last.Method);
                Assert.Equal(Base + "/v1/dev-user/login/mfa", fake.Last.Url.AbsoluteUri);
                Assert.Equal("{\"mfa_token\":\"mfa-secret-token\",\"code\":\"123456\"}", fake.Last.Body);
                Assert.Equal("jwt-2fa", session.Token);
                Assert.Equal("42", session.Uuid);
            });

            t.Add("mfa: a federated login throws MfaRequiredException with Created", async () =>
            {
                var required = await Assert.ThrowsAsync<MfaRequiredException>(() =>
                    Client(TwoSteps(",\"created\":false")).FederatedLoginAsync("apple", "eyJ.id.token"));
                Assert.True(required.Created == false, "created is false");
            });

            t.Add("mfa: a wrong code is InvalidMfaCodeException, a used or dead token InvalidMfaTokenException", async () =>
            {
                var fake = TwoSteps();
                var wrong = await Assert.ThrowsAsync<InvalidMfaCodeException>(() => Client(fake).LoginMfaAsync("mfa-secret-token", "000000"));
                Assert.Equal(401, wrong.Status);
                Assert.True(wrong is AuthenticationException, "an AuthenticationException");
                await Client(fake).LoginMfaAsync("mfa-secret-token", "123456");
                await Assert.ThrowsAsync<InvalidMfaTokenException>(() => Client(fake).LoginMfaAsync("mfa-secret-token", "123456"));

                fake = TwoSteps();
                for (var i = 0; i < 5; i++)
                    await Assert.ThrowsAsync<InvalidMfaCodeException>(() => Client(fake).LoginMfaAsync("mfa-secret-token", "00000" + i));
                await Assert.ThrowsAsync<InvalidMfaTokenException>(() => Client(fake).LoginMfaAsync("mfa-secret-token", "123456"));
                var before = fake.Requests.Count;
                await Assert.ThrowsAsync<ArgumentException>(() => Client(fake).LoginMfaAsync("", "123456"));
                Assert.Equal(before, fake.Requests.Count);
            });
        }
    }
}
