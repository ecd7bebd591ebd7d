using System;
using System.Security.Cryptography;
using System.Text;

namespace Dauth
{
    /// <summary>
    /// The client side of PIN custody (interface spec "Key shares", decisions §4). The PIN never
    /// leaves the device: the service receives <c>pin_hash</c> = lowercase hex SHA-256 of the UTF-8
    /// text PIN + pin_salt, and derives <c>share_pin</c> = PBKDF2-HMAC-SHA256(password = the pin_hash
    /// hex text, salt = PIN_SHARE_SALT, 100000 iterations, 32 bytes) itself. The owner key is
    /// share_pin XOR share_server XOR share_user.
    /// </summary>
    public static class PinCrypto
    {
        public const int PinDigits = 6;
        public const int SharePinIterations = 100000;
        public const int ShareBytes = 32;
        /// <summary>The service's default PIN_SHARE_SALT.</summary>
        public const string DefaultSharePinSalt = "dauth/share_pin/v1";
        private const string MnemonicKeyPrefix = "dauth/mnemonic/v1:";

        /// <summary>A fresh pin_salt: 32 random bytes as 64 lowercase hex characters.</summary>
        public static string NewSalt()
        {
            var bytes = new byte[32];
            using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(bytes);
            return Hex.Encode(bytes);
        }

        /// <summary>True for exactly six ASCII digits.</summary>
        public static bool IsValidPin(string pin)
        {
            if (pin == null || pin.Length != PinDigits) return false;
            foreach (char c in pin) if (c < '0' || c > '9') return false;
            return true;
        }

        /// <summary>pin_hash: lowercase hex SHA-256 of the UTF-8 text <paramref name="pin"/> + <paramref name="pinSalt"/>.</summary>
        public static string PinHash(string pin, string pinSalt)
        {
            if (!IsValidPin(pin)) throw new ArgumentException("a PIN is 6 digits", "pin");
            if (!Hex.IsHex(pinSalt, 64)) throw new ArgumentException("pin_salt is 64 hex characters", "pinSalt");
            var input = Encoding.UTF8.GetBytes(pin + pinSalt);
            try
            {
                using (var sha = SHA256.Create()) return Hex.Encode(sha.ComputeHash(input));
            }
            finally
            {
                Array.Clear(input, 0, input.Length);
            }
        }

        /// <summary>
        /// share_pin as the service derives it (the password is the pin_hash *text*). Slow on purpose
        /// (100000 iterations): call it off the main thread. The caller clears the returned bytes.
        /// </summary>
        public static byte[] SharePin(string pinHash, string sharePinSalt = DefaultSharePinSalt)
        {
            if (!Hex.IsHex(pinHash, 64)) throw new ArgumentException("pin_hash is 64 hex characters", "pinHash");
            if (string.IsNullOrEmpty(sharePinSalt)) throw new ArgumentException("the share salt is not empty", "sharePinSalt");
            var password = Encoding.UTF8.GetBytes(pinHash);
            var salt = Encoding.UTF8.GetBytes(sharePinSalt);
            try
            {
                // Rfc2898DeriveBytes refuses salts under 8 bytes; the service accepts any non-empty one.
                if (salt.Length < 8) return Pbkdf2Sha256(password, salt, SharePinIterations, ShareBytes);
                using (var kdf = new Rfc2898DeriveBytes(password, salt, SharePinIterations, HashAlgorithmName.SHA256))
                    return kdf.GetBytes(ShareBytes);
            }
            finally
            {
                Array.Clear(password, 0, password.Length);
            }
        }

        /// <summary>XOR of equal-length 32-byte shares given as 64 hex characters; the result in lowercase hex.</summary>
        public static string XorShares(params string[] sharesHex)
        {
            if (sharesHex == null || sharesHex.Length < 2) throw new ArgumentException("at least two shares");
            var result = new byte[ShareBytes];
            foreach (var share in sharesHex)
            {
                if (!Hex.IsHex(share, 64)) throw new ArgumentException("a key share is 64 hex characters");
                var bytes = Hex.Decode(share);
                for (int k = 0; k < ShareBytes; k++) result[k] ^= bytes[k];
                Array.Clear(bytes, 0, bytes.Length);
            }
            try { return Hex.Encode(result); } finally { Array.Clear(result, 0, result.Length); }
        }

        /// <summary>
        /// Reads the mnemonic returned by PIN registration (<c>mnemonic</c>) or recover
        /// (<c>mnemonic_enc</c>): hex of iv(16) ‖ AES-256-CTR(key = SHA-256("dauth/mnemonic/v1:" + pin_hash), iv, text).
        /// </summary>
        public static string DecryptMnemonic(string mnemonicHex, string pinHash)
        {
            if (mnemonicHex == null || mnemonicHex.Length % 2 != 0 || !Hex.IsHex(mnemonicHex, mnemonicHex.Length) || mnemonicHex.Length <= 32)
                throw new ArgumentException("the encrypted mnemonic is hex of iv and ciphertext", "mnemonicHex");
            if (!Hex.IsHex(pinHash, 64)) throw new ArgumentException("pin_hash is 64 hex characters", "pinHash");
            var raw = Hex.Decode(mnemonicHex);
            byte[] key;
            using (var sha = SHA256.Create()) key = sha.ComputeHash(Encoding.UTF8.GetBytes(MnemonicKeyPrefix + pinHash));
            var iv = new byte[16];
            Buffer.BlockCopy(raw, 0, iv, 0, 16);
            var cipherText = new byte[raw.Length - 16];
            Buffer.BlockCopy(raw, 16, cipherText, 0, cipherText.Length);
            var plain = AesCtr(key, iv, cipherText);
            try { return Encoding.UTF8.GetString(plain); }
            finally
            {
                Array.Clear(key, 0, key.Length);
                Array.Clear(plain, 0, plain.Length);
            }
        }

        /// <summary>AES-256-CTR with a 128-bit big-endian counter block (as OpenSSL's aes-256-ctr).</summary>
        internal static byte[] AesCtr(byte[] key, byte[] iv, byte[] input)
        {
            var output = new byte[input.Length];
            var counter = (byte[])iv.Clone();
            var keystream = new byte[16];
            using (var aes = Aes.Create())
            {
                aes.Mode = CipherMode.ECB;
                aes.Padding = PaddingMode.None;
                aes.Key = key;
                using (var encryptor = aes.CreateEncryptor())
                {
                    for (int offset = 0; offset < input.Length; offset += 16)
                    {
                        encryptor.TransformBlock(counter, 0, 16, keystream, 0);
                        int n = Math.Min(16, input.Length - offset);
                        for (int k = 0; k < n; k++) output[offset + k] = (byte)(input[offset + k] ^ keystream[k]);
                        for (int k = 15; k >= 0; k--) if (++counter[k] != 0) break;
                    }
                }
            }
            Array.Clear(keystream, 0, keystream.Length);
            return output;
        }

        /// <summary>PBKDF2-HMAC-SHA256 (RFC 8018 §5.2), for the salts Rfc2898DeriveBytes refuses.</summary>
        internal static byte[] Pbkdf2Sha256(byte[] password, byte[] salt, int iterations, int length)
        {
            var output = new byte[length];
            using (var hmac = new HMACSHA256(password))
            {
                int blocks = (length + 31) / 32;
                for (int block = 1; block <= blocks; block++)
                {
                    var first = new byte[salt.Length + 4];
                    Buffer.BlockCopy(salt, 0, first, 0, salt.Length);
                    first[salt.Length] = (byte)(block >> 24);
                    first[salt.Length + 1] = (byte)(block >> 16);
                    first[salt.Length + 2] = (byte)(block >> 8);
                    first[salt.Length + 3] = (byte)block;
                    var u = hmac.ComputeHash(first);
                    var t = (byte[])u.Clone();
                    for (int n = 1; n < iterations; n++)
                    {
                        u = hmac.ComputeHash(u);
                        for (int k = 0; k < t.Length; k++) t[k] ^= u[k];
                    }
                    Buffer.BlockCopy(t, 0, output, (block - 1) * 32, Math.Min(32, length - (block - 1) * 32));
                }
            }
            return output;
        }
    }

    /// <summary>
    /// What every PIN-gated call sends: pin_hash, pin_salt and key_share_user. Keep it in memory for
    /// the session; store pin_salt and key_share_user on the device (key_share_user alone opens
    /// nothing), never the PIN or the pin_hash.
    /// </summary>
    public sealed class PinCredentials
    {
        public PinCredentials(string pinHash, string pinSalt, string keyShareUser)
        {
            if (!Hex.IsHex(pinHash, 64)) throw new ArgumentException("pin_hash is 64 hex characters", "pinHash");
            if (!Hex.IsHex(pinSalt, 64)) throw new ArgumentException("pin_salt is 64 hex characters", "pinSalt");
            if (!Hex.IsHex(keyShareUser, 64)) throw new ArgumentException("key_share_user is 64 hex characters", "keyShareUser");
            PinHash = pinHash;
            PinSalt = pinSalt;
            KeyShareUser = keyShareUser;
        }

        /// <summary>The credentials for the PIN the player typed, with the salt and share kept since registration.</summary>
        public static PinCredentials FromPin(string pin, string pinSalt, string keyShareUser)
        {
            return new PinCredentials(PinCrypto.PinHash(pin, pinSalt), pinSalt, keyShareUser);
        }

        public string PinHash { get; private set; }
        public string PinSalt { get; private set; }
        public string KeyShareUser { get; private set; }

        internal JsonObjectBuilder AddTo(JsonObjectBuilder body)
        {
            return body.Add("pin_hash", PinHash).Add("pin_salt", PinSalt).Add("key_share_user", KeyShareUser);
        }

        /// <summary>Never prints the secrets.</summary>
        public override string ToString() { return "PinCredentials(redacted)"; }
    }

    internal static class Hex
    {
        public static bool IsHex(string s, int length)
        {
            if (s == null || s.Length != length) return false;
            foreach (char c in s)
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
            return true;
        }

        public static string Encode(byte[] bytes)
        {
            var sb = new StringBuilder(bytes.Length * 2);
            foreach (var b in bytes) sb.Append("0123456789abcdef"[b >> 4]).Append("0123456789abcdef"[b & 15]);
            return sb.ToString();
        }

        public static byte[] Decode(string hex)
        {
            var bytes = new byte[hex.Length / 2];
            for (int k = 0; k < bytes.Length; k++) bytes[k] = Convert.ToByte(hex.Substring(k * 2, 2), 16);
            return bytes;
        }
    }
}
