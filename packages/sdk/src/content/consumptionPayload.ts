import { createCipheriv, randomBytes } from 'node:crypto';
import { SlotId } from '../slotId.js';

/**
 * The consumption payload of `increase_used_content_token` and its two encrypted forms
 * (docs/content-tokens.md, "Consumption payloads"):
 *
 * - `ctr`, the spec's form: hex(AES-256-CTR(key, iv, JSON text)) under the fixed 32-byte key and
 *   16-byte IV issued at provider registration.
 * - `gcm`, the authenticated form: `gcm1:` + hex(iv ‖ ciphertext ‖ tag) under the 32-byte GCM key, a
 *   fresh 12-byte IV per message and the client id as additional data; the plaintext carries `iat`.
 *   Prefer it: the fixed CTR key stream lets one known plaintext forge any payload.
 */
export type PayloadCipher =
  | { form: 'ctr'; /** Hex, 32 bytes. */ key: string; /** Hex, 16 bytes. */ iv: string }
  | { form: 'gcm'; /** Hex, 32 bytes: the `gcm_key` of `payload_mode`. */ key: string };

export interface ConsumptionRecord {
  /** The slot id (`user_dbkey`): a `SlotId` from slot information, or its decimal digits. */
  userDbkey: SlotId | string;
  /** Content-token base units to consume: a positive integer. */
  amount: bigint | number | string;
  /** The provider's content id. */
  cuid: string;
  /** Makes a retried call count once (1–128 characters); strongly advised. */
  requestId?: string;
}

const GCM_IV_BYTES = 12;
const DECIMAL = /^[1-9]\d*$/;

/** The additional data of the authenticated form: the provider's client id. */
export const gcmAad = (clientId: string): string => `dauth/content-payload/v1:${clientId}`;

/**
 * The payload's JSON text: `{client_id, user_dbkey, amount, cuid, request_id?, iat?}` with the slot
 * id and the amount as decimal strings (a 19-digit id does not fit a JavaScript number).
 */
export function consumptionPlaintext(clientId: string, record: ConsumptionRecord, iat?: number): string {
  const userDbkey = record.userDbkey instanceof SlotId ? record.userDbkey.value : record.userDbkey;
  if (typeof userDbkey !== 'string' || !DECIMAL.test(userDbkey)) {
    throw new TypeError('dauth: userDbkey must be a slot id (decimal digits)');
  }
  const amount = typeof record.amount === 'string' ? record.amount : String(record.amount);
  if (!DECIMAL.test(amount)) throw new TypeError('dauth: amount must be a positive integer of base units');
  if (typeof record.cuid !== 'string' || record.cuid === '') throw new TypeError('dauth: cuid is required');
  const payload: Record<string, string | number> = {
    client_id: clientId,
    user_dbkey: userDbkey,
    amount,
    cuid: record.cuid,
  };
  if (record.requestId !== undefined) payload.request_id = record.requestId;
  if (iat !== undefined) payload.iat = iat;
  return JSON.stringify(payload);
}

function keyBytes(hex: string, length: number, name: string): Buffer {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]*$/.test(hex) || hex.length !== length * 2) {
    throw new TypeError(`dauth: ${name} must be ${length} bytes of hex`);
  }
  return Buffer.from(hex, 'hex');
}

/** Checks a cipher's key material once, so that a misconfiguration fails at construction. */
export function checkPayloadCipher(cipher: PayloadCipher): void {
  if (cipher.form === 'ctr') {
    keyBytes(cipher.key, 32, 'the CTR key');
    keyBytes(cipher.iv, 16, 'the CTR IV');
  } else if (cipher.form === 'gcm') {
    keyBytes(cipher.key, 32, 'the GCM key');
  } else {
    throw new TypeError("dauth: the payload cipher's form must be 'ctr' or 'gcm'");
  }
}

/** `encrypted_message` for a payload's JSON text under `cipher`. */
export function encryptConsumptionPayload(
  plaintext: string,
  cipher: PayloadCipher,
  clientId: string,
): string {
  if (cipher.form === 'ctr') {
    const ctr = createCipheriv(
      'aes-256-ctr',
      keyBytes(cipher.key, 32, 'the CTR key'),
      keyBytes(cipher.iv, 16, 'the CTR IV'),
    );
    return Buffer.concat([ctr.update(plaintext, 'utf8'), ctr.final()]).toString('hex');
  }
  const iv = randomBytes(GCM_IV_BYTES);
  const gcm = createCipheriv('aes-256-gcm', keyBytes(cipher.key, 32, 'the GCM key'), iv);
  gcm.setAAD(Buffer.from(gcmAad(clientId), 'utf8'));
  const body = Buffer.concat([gcm.update(plaintext, 'utf8'), gcm.final()]);
  return `gcm1:${Buffer.concat([iv, body, gcm.getAuthTag()]).toString('hex')}`;
}
