using System;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;

namespace Dauth
{
    /// <summary>
    /// An ALTCHA challenge of <c>GET /v1/challenge</c> (docs/security.md "Bot challenge"): the number n in
    /// 0..<see cref="MaxNumber"/> with SHA-256(<see cref="Salt"/> + n) = <see cref="Challenge"/>.
    /// </summary>
    public sealed class BotChallenge
    {
        public BotChallenge(string algorithm, string challenge, string salt, string signature, long maxNumber)
        {
            Algorithm = algorithm;
            Challenge = challenge;
            Salt = salt;
            Signature = signature;
            MaxNumber = maxNumber;
        }

        public string Algorithm { get; }
        public string Challenge { get; }
        public string Salt { get; }
        public string Signature { get; }
        public long MaxNumber { get; }

        /// <summary>
        /// Finds the number by brute force (about a million SHA-256 a second on one core) and returns the
        /// <c>altcha</c> value a covered request carries, once: the base64 JSON
        /// <c>{algorithm, challenge, number, salt, signature}</c>. Throws when no number up to the maximum fits.
        /// </summary>
        public string Solve()
        {
            if (Algorithm != "SHA-256") throw new DauthException("unsupported_challenge", 0, "unsupported challenge algorithm " + Algorithm);
            var target = Challenge.ToLowerInvariant();
            using (var sha = SHA256.Create())
            {
                for (long n = 0; n <= MaxNumber; n++)
                {
                    var digest = sha.ComputeHash(Encoding.UTF8.GetBytes(Salt + n.ToString(CultureInfo.InvariantCulture)));
                    if (Hex.Encode(digest) != target) continue;
                    var payload = new JsonObjectBuilder()
                        .Add("algorithm", Algorithm)
                        .Add("challenge", Challenge)
                        .Add("number", JsonValue.FromNumberText(n.ToString(CultureInfo.InvariantCulture)))
                        .Add("salt", Salt)
                        .Add("signature", Signature);
                    return Convert.ToBase64String(Encoding.UTF8.GetBytes(payload.ToString()));
                }
            }
            throw new DauthException("unsolvable_challenge", 0, "the challenge has no solution up to its maxnumber");
        }
    }
}
