import { isSlotId } from '../slots/slotId.js';
import { parseTokenUnits } from './amounts.js';

/** A decrypted consumption payload (spec: `{client_id, user_dbkey, amount, cuid}`, plus our optional fields). */
export interface ConsumptionPayload {
  clientId: string;
  /** The slot id (`user_dbkey`) as decimal digits. */
  slotId: string;
  amount: bigint;
  cuid: string;
  /** Makes a retried call count once. */
  requestId: string | undefined;
  /** Issued-at, Unix seconds; required by the authenticated form. */
  iat: number | undefined;
}

const MAX_ID_LENGTH = 128;
const isIdText = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= MAX_ID_LENGTH;

/**
 * Parses the plaintext of a consumption payload; undefined unless it is a JSON object with a non-empty
 * `client_id` and `cuid`, a slot id `user_dbkey` (decimal string, or a safe integer), a positive integer
 * `amount` (string of base units, or a safe integer), and, when present, a string `request_id` and a
 * numeric `iat`. The first non-blank character must be `{`, which is also what makes a random decryption
 * under the wrong key fail fast.
 */
export function parseConsumptionPayload(plaintext: Buffer): ConsumptionPayload | undefined {
  const first = plaintext.findIndex((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
  if (first < 0 || plaintext[first] !== 0x7b) return undefined;
  let value: unknown;
  try {
    // TextDecoder with `fatal` refuses invalid UTF-8 instead of replacing it.
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  if (!isIdText(o.client_id) || !isIdText(o.cuid)) return undefined;
  let slotId: string;
  if (typeof o.user_dbkey === 'string' && isSlotId(o.user_dbkey)) slotId = o.user_dbkey;
  else if (typeof o.user_dbkey === 'number' && Number.isSafeInteger(o.user_dbkey) && o.user_dbkey > 0) {
    slotId = String(o.user_dbkey);
  } else return undefined;
  const amount = parseTokenUnits(o.amount);
  if (amount === undefined) return undefined;
  if (o.request_id !== undefined && !isIdText(o.request_id)) return undefined;
  if (o.iat !== undefined && (typeof o.iat !== 'number' || !Number.isFinite(o.iat))) return undefined;
  return {
    clientId: o.client_id,
    slotId,
    amount,
    cuid: o.cuid,
    requestId: o.request_id as string | undefined,
    iat: o.iat as number | undefined,
  };
}
