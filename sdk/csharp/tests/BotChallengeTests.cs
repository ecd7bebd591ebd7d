using System;
using System.Security.Cryptography;
using System.Text;

namespace Dauth.Tests
{
    /// <summary>
    /// The bot challenge (docs/security.md): a game fetches GET /v1/challenge, solves it by brute force and
    /// sends the solution with the guest creation, against a recording transport that checks it as the
    /// service does (SHA-256 of salt + number).
    /// </summary>
    public static class BotChallengeTests
    {
        private const string Base = "https://dauth.test/base";
        private const string Salt = "0a1b2c?expires=9999999999&";

        private static string Sha(string text)
        {
            using (var sha = SHA256.Create())
            {
                var sb = new StringBuilder();
                foreach (var b in sha.ComputeHash(Encoding.UTF8.GetBytes(text))) sb.Append(b.ToString("x2"));
                return sb.ToString();
            }
        }

        public static void Register(TestRunner t)
        {
            t.Add("challenge: SolveBotChallengeAsync finds the number; CreateGuestAsync(altcha) sends it", async () =>
            {
                var challenge = Sha(Salt + "4321");
                var fake = new FakeTransport(request =>
                {
                    if (request.Method == "GET")
                        return new DauthHttpResponse(200, "{\"algorithm\":\"SHA-256\",\"challenge\":\"" + challenge + "\",\"salt\":\"" + Salt +
                            "\",\"signature\":\"sig\",\"maxnumber\":50000}", null);
                    var body = JsonParser.Parse(request.Body);
                    var altcha = body.Get("altcha");
                    if (altcha == null)
                        return new DauthHttpResponse(400, "{\"success\":false,\"error\":\"challenge_required\",\"message\":\"solve one\"}", null);
                    var payload = JsonParser.Parse(Encoding.UTF8.GetString(Convert.FromBase64String(altcha.AsString)));
                    Assert.Equal("4321", payload.Get("number").ToString());
                    Assert.Equal(challenge, payload.Get("challenge").AsString);
                    Assert.Equal(Salt, payload.Get("salt").AsString);
                    Assert.Equal("sig", payload.Get("signature").AsString);
                    return new DauthHttpResponse(201, "{\"success\":true,\"token\":\"jwt\",\"uuid\":\"7\",\"guest_secret\":\"s\"}", null);
                });
                var client = new DauthClient(Base, "game-client", fake);
                var refused = await Assert.ThrowsAsync<DauthException>(() => client.CreateGuestAsync());
                Assert.Equal("challenge_required", refused.Code);
                var solution = await client.SolveBotChallengeAsync();
                Assert.Equal(Base + "/v1/challenge?client_id=game-client", fake.Last.Url.AbsoluteUri);
                var guest = await client.CreateGuestAsync(solution);
                Assert.Equal("7", guest.Session.Uuid);
            });

            t.Add("challenge: a challenge without a solution up to maxnumber throws", () =>
            {
                var unsolvable = new BotChallenge("SHA-256", Sha(Salt + "900"), Salt, "sig", 899);
                Assert.Throws<DauthException>(() => unsolvable.Solve());
            });
        }
    }
}
