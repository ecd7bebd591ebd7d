import { createCipheriv, createDecipheriv, createHash, pbkdf2, randomBytes } from 'node:crypto';

/**
 * The XOR 3-of-3 split of a wallet owner key (spec "Key shares (PIN custody)", decisions §4):
 *
 *   share_pin    = PBKDF2-HMAC-SHA256(password = pin_hash hex text, salt = PIN_SHARE_SALT, 100000, 32)
 *   share_server = 32 random bytes (kept sealed under MASTER_KEY)
 *   share_user   = key ⊕ share_pin ⊕ share_server (held by the client)
 *   key          = share_pin ⊕ share_server ⊕ share_user
 *
 * Every function here works on Buffers the caller owns and wipes; nothing returns a key or share
 * as a string except the explicit hex encoders used for the wire format.
 */
export const SHARE_BYTES = 32;
export const PIN_SHARE_ITERATIONS = 100_000;
export const PIN_SHARE_DIGEST = 'sha256';

/** `pin_hash`: 64 lowercase hex characters (SHA-256 of PIN ‖ pin_salt, computed by the client). */
export const PIN_HASH_PATTERN = '^[0-9a-f]{64}$';
/** `pin_salt`: exactly 64 hex characters. */
export const PIN_SALT_PATTERN = '^[0-9a-fA-F]{64}$';
/** `key_share_user`: 32 bytes as 64 hex characters (we emit lowercase and accept either case). */
export const KEY_SHARE_PATTERN = '^[0-9a-fA-F]{64}$';

/**
 * Derives share_pin on libuv's thread pool (`crypto.pbkdf2`), never on the event loop.
 * The password is the pin_hash *text* (its 64 hex characters as UTF-8), as decisions §4 says.
 */
export function deriveSharePin(pinHash: string, salt: string): Promise<Buffer> {
  const password = Buffer.from(pinHash, 'utf8');
  return new Promise<Buffer>((resolve, reject) =>
    pbkdf2(password, salt, PIN_SHARE_ITERATIONS, SHARE_BYTES, PIN_SHARE_DIGEST, (err, derived) => {
      password.fill(0);
      if (err) reject(err);
      else resolve(derived);
    }),
  );
}

/** A fresh share_server. */
export function newServerShare(): Buffer {
  return randomBytes(SHARE_BYTES);
}

/** a ⊕ b ⊕ c into a new Buffer (all three must be SHARE_BYTES long). */
export function xor3(a: Uint8Array, b: Uint8Array, c: Uint8Array): Buffer {
  if (a.length !== SHARE_BYTES || b.length !== SHARE_BYTES || c.length !== SHARE_BYTES) {
    throw new Error(`key shares must be ${SHARE_BYTES} bytes`);
  }
  const out = Buffer.alloc(SHARE_BYTES);
  for (let i = 0; i < SHARE_BYTES; i++) out[i] = a[i]! ^ b[i]! ^ c[i]!;
  return out;
}

/** share_user = key ⊕ share_pin ⊕ share_server. The caller wipes every argument and the result. */
export function splitKey(key: Uint8Array, sharePin: Uint8Array, shareServer: Uint8Array): Buffer {
  return xor3(key, sharePin, shareServer);
}

/** key = share_pin ⊕ share_server ⊕ share_user. The caller wipes the result in a `finally`. */
export function combineShares(sharePin: Uint8Array, shareServer: Uint8Array, shareUser: Uint8Array): Buffer {
  return xor3(sharePin, shareServer, shareUser);
}

/** Parses a 64-hex share from the wire into a Buffer the caller wipes. */
export function shareFromHex(hex: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error('a key share is 64 hex characters');
  return Buffer.from(hex, 'hex');
}

/** Wipes every buffer given, ignoring the undefined ones (for `finally` blocks). */
export function wipe(...buffers: (Uint8Array | undefined | null)[]): void {
  for (const b of buffers) b?.fill(0);
}

const MNEMONIC_KEY_PREFIX = 'dauth/mnemonic/v1:';
const IV_BYTES = 16;

function pinMnemonicKey(pinHash: string): Buffer {
  return createHash('sha256').update(`${MNEMONIC_KEY_PREFIX}${pinHash}`, 'utf8').digest();
}

/**
 * The copy of the mnemonic only the PIN holder can read (decisions §4): hex of
 * iv(16) ‖ AES-256-CTR(key = SHA-256("dauth/mnemonic/v1:" + pin_hash), iv, mnemonic UTF-8).
 */
export function encryptMnemonicForPin(mnemonic: string, pinHash: string): string {
  const key = pinMnemonicKey(pinHash);
  const plaintext = Buffer.from(mnemonic, 'utf8');
  try {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-ctr', key, iv);
    return Buffer.concat([iv, cipher.update(plaintext), cipher.final()]).toString('hex');
  } finally {
    wipe(key, plaintext);
  }
}

/** Inverse of `encryptMnemonicForPin` (what a client does; used by tests and the docs' example). */
export function decryptMnemonicForPin(hex: string, pinHash: string): string {
  const raw = Buffer.from(hex, 'hex');
  if (raw.length <= IV_BYTES) throw new Error('encrypted mnemonic too short');
  const key = pinMnemonicKey(pinHash);
  try {
    const decipher = createDecipheriv('aes-256-ctr', key, raw.subarray(0, IV_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES)), decipher.final()]).toString('utf8');
  } finally {
    wipe(key);
  }
}
