using System;
using System.IO;
using System.Text;

namespace Dauth.Tests
{
    /// <summary>sdk/vectors/pin.json: the derivations the server checks in packages/server/test/crypto/pinVectors.test.ts.</summary>
    public static class PinTests
    {
        public static void Register(TestRunner t)
        {
            t.Add("pin vectors: pin_hash, share_pin, the XOR of the shares and the mnemonic as the server computes them", () =>
            {
                var file = JsonParser.Parse(File.ReadAllText(Path.Combine(TestRunner.SdkDir, "vectors", "pin.json"), Encoding.UTF8));
                var vectors = file.Get("vectors").Items;
                Assert.True(vectors.Count >= 3, "at least three vectors");
                foreach (var v in vectors)
                {
                    string name = v.Get("name").AsString;
                    string pinHash = PinCrypto.PinHash(v.Get("pin").AsString, v.Get("pin_salt").AsString);
                    Assert.Equal(v.Get("pin_hash").AsString, pinHash, name + ": pin_hash");
                    var sharePin = PinCrypto.SharePin(pinHash, v.Get("share_pin_salt").AsString);
                    Assert.Equal(v.Get("share_pin").AsString, Hex(sharePin), name + ": share_pin");
                    Assert.Equal(v.Get("owner_key").AsString,
                        PinCrypto.XorShares(Hex(sharePin), v.Get("share_server").AsString, v.Get("share_user").AsString), name + ": key");
                    Assert.Equal(v.Get("share_user").AsString,
                        PinCrypto.XorShares(v.Get("owner_key").AsString, Hex(sharePin), v.Get("share_server").AsString), name + ": share_user");
                    Assert.Equal(v.Get("mnemonic").AsString, PinCrypto.DecryptMnemonic(v.Get("mnemonic_enc").AsString, pinHash), name + ": mnemonic");
                    var credentials = PinCredentials.FromPin(v.Get("pin").AsString, v.Get("pin_salt").AsString, v.Get("share_user").AsString);
                    Assert.Equal(pinHash, credentials.PinHash);
                    Assert.True(credentials.ToString().IndexOf(pinHash, StringComparison.Ordinal) < 0, "ToString hides the pin_hash");
                }
            });

            t.Add("pin: the BCL's PBKDF2 and the fallback agree (RFC 7914 §11 PBKDF2-HMAC-SHA256 vector)", () =>
            {
                var fallback = PinCrypto.Pbkdf2Sha256(Encoding.UTF8.GetBytes("passwd"), Encoding.UTF8.GetBytes("salt"), 1, 64);
                Assert.Equal("55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783", Hex(fallback));
                var salt = Encoding.UTF8.GetBytes(PinCrypto.DefaultSharePinSalt);
                var password = Encoding.UTF8.GetBytes(new string('a', 64));
                using (var kdf = new System.Security.Cryptography.Rfc2898DeriveBytes(password, salt, 1000, System.Security.Cryptography.HashAlgorithmName.SHA256))
                    Assert.Equal(Hex(kdf.GetBytes(32)), Hex(PinCrypto.Pbkdf2Sha256(password, salt, 1000, 32)));
            });

            t.Add("pin: bad input refused before anything is sent", () =>
            {
                var salt = PinCrypto.NewSalt();
                Assert.Equal(64, salt.Length);
                Assert.True(salt != PinCrypto.NewSalt(), "fresh salts differ");
                foreach (var pin in new[] { "12345", "1234567", "12a456", "", null, "１２３４５６" })
                    Assert.Throws<ArgumentException>(() => PinCrypto.PinHash(pin, salt), "pin " + pin);
                Assert.Throws<ArgumentException>(() => PinCrypto.PinHash("123456", "abc"));
                Assert.Throws<ArgumentException>(() => PinCrypto.XorShares("00"));
                Assert.Throws<ArgumentException>(() => PinCrypto.XorShares(new string('0', 64), new string('g', 64)));
                Assert.Throws<ArgumentException>(() => new PinCredentials(new string('0', 64), salt, "0x" + new string('0', 62)));
                Assert.Throws<ArgumentException>(() => PinCrypto.DecryptMnemonic("00", new string('0', 64)));
            });
        }

        public static string Hex(byte[] bytes) { return BitConverter.ToString(bytes).Replace("-", "").ToLowerInvariant(); }
    }
}
