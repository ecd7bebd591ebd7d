import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type KeyObject,
  randomBytes,
  type CipherGCM,
  type DecipherGCM,
} from 'node:crypto';

/**
 * The two forms of a content-token consumption payload (spec endpoint group 14, rule 5, and our
 * authenticated extension). Both take the provider's secrets as `KeyObject`s, so raw key bytes live in
 * JavaScript memory only while a key is being loaded.
 *
 * - Legacy (spec): AES-256-CTR under a fixed 32-byte key and a fixed 16-byte IV, hex in and out. The same
 *   plaintext always gives the same ciphertext and the key stream is the same for every message, so one
 *   known plaintext–ciphertext pair reveals the key stream and lets anyone forge payloads. Kept because the
 *   interface requires it; see docs/content-tokens.md.
 * - Authenticated: AES-256-GCM under a separate 32-byte key with a fresh 12-byte IV per message and the
 *   provider's client id as additional data. Wire form: `gcm1:` followed by hex(iv ‖ ciphertext ‖ tag).
 */
export const CTR_KEY_BYTES = 32;
export const CTR_IV_BYTES = 16;
export const GCM_KEY_BYTES = 32;
export const GCM_IV_BYTES = 12;
export const GCM_TAG_BYTES = 16;
export const GCM_PREFIX = 'gcm1:';

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

/** Strict hex (even length, hex digits only, no `0x`) to bytes; undefined for anything else. */
export function hexToBytes(text: string): Buffer | undefined {
  if (!HEX.test(text)) return undefined;
  return Buffer.from(text, 'hex');
}

/** Wraps raw key bytes into a `KeyObject` and wipes the source buffer. */
export function secretKeyFrom(bytes: Buffer, expectedLength: number): KeyObject {
  try {
    if (bytes.length !== expectedLength) throw new Error(`key must be ${expectedLength} bytes`);
    return createSecretKey(bytes);
  } finally {
    bytes.fill(0);
  }
}

/** AES-256-CTR of `data` under `key` and `iv` (encryption and decryption are the same operation). */
export function ctrTransform(key: KeyObject, iv: Buffer, data: Buffer | string): Buffer {
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  return Buffer.concat([
    cipher.update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data),
    cipher.final(),
  ]);
}

/**
 * AES-256-CTR of `data` from the first bytes of its fixed key stream (`ctrKeystreamPrefix` of the same key
 * and IV): a XOR, the same bytes as `ctrTransform` without a cipher context per call (7 µs against 0.3 for a
 * 150-byte payload, docs/performance-content.md, round 19). Undefined when `data` is longer than `keystream`.
 */
export function ctrWithKeystream(keystream: Buffer, data: Buffer): Buffer | undefined {
  if (data.length > keystream.length) return undefined;
  const out = Buffer.allocUnsafe(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i]! ^ keystream[i]!;
  return out;
}

/** Hex ciphertext of the UTF-8 `plaintext`, exactly as `openssl enc -aes-256-ctr -K <key> -iv <iv>` writes it. */
export function ctrEncryptHex(key: KeyObject, iv: Buffer, plaintext: string): string {
  return ctrTransform(key, iv, plaintext).toString('hex');
}

/**
 * The first bytes of the fixed key stream (AES(key, iv) for the first block). Used to index providers by
 * what the first ciphertext bytes of a `{"…` payload must be, so a payload sent without a `client_id`
 * finds its key without trying every provider.
 */
export function ctrKeystreamPrefix(key: KeyObject, iv: Buffer, length = 2): Buffer {
  return ctrTransform(key, iv, Buffer.alloc(length));
}

/** `gcm1:` + hex(iv ‖ ciphertext ‖ tag) of `plaintext`, bound to `aad`. */
export function gcmSeal(key: KeyObject, plaintext: string, aad: string): string {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv) as CipherGCM;
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return GCM_PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('hex');
}

export interface GcmParts {
  iv: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/** Splits a `gcm1:` message into its parts; undefined when it is not one or is too short. */
export function parseGcmMessage(message: string): GcmParts | undefined {
  if (!message.startsWith(GCM_PREFIX)) return undefined;
  const raw = hexToBytes(message.slice(GCM_PREFIX.length));
  if (!raw || raw.length < GCM_IV_BYTES + GCM_TAG_BYTES + 2) return undefined;
  return {
    iv: raw.subarray(0, GCM_IV_BYTES),
    ciphertext: raw.subarray(GCM_IV_BYTES, raw.length - GCM_TAG_BYTES),
    tag: raw.subarray(raw.length - GCM_TAG_BYTES),
  };
}

/** Opens a GCM message; undefined when the tag does not verify (wrong key, wrong aad, or tampered). */
export function gcmOpen(key: KeyObject, parts: GcmParts, aad: string): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, parts.iv) as DecipherGCM;
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(parts.tag);
    return Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** The additional data every authenticated payload is bound to: its provider's client id. */
export const gcmAad = (clientId: string) => `dauth/content-payload/v1:${clientId}`;
