import { MalformedResponseError } from './errors.js';
import type { JsonValue } from './losslessJson.js';
import { SlotId } from './slotId.js';

/**
 * Slot information as get_token returns it (spec, Resources › SlotInfo). Field names are the wire
 * names, so the spec's table documents them. Only `id` and `access_token` are guaranteed; the service
 * sends the rest today, but an absent one is left out rather than invented.
 */
export interface SlotInfo {
  id: SlotId;
  access_token: string;
  refresh_token?: string;
  /** Lifetime of the access token in seconds. */
  expires_in?: number;
  content_address?: string;
  token_nickname?: string;
  tr_cnt?: number;
  /** The authorization code that was exchanged. */
  code?: string;
}

const OPTIONAL_STRINGS = ['refresh_token', 'content_address', 'token_nickname', 'code'] as const;
const OPTIONAL_NUMBERS = ['expires_in', 'tr_cnt'] as const;

/** Reads element 0 of an envelope's `data`. A member of the wrong type makes the body malformed. */
export function parseSlotInfo(raw: JsonValue | undefined, responseStatus?: number): SlotInfo {
  if (raw === null || raw === undefined || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new MalformedResponseError('data[0] is not slot information', responseStatus);
  }
  const id = SlotId.fromJson(raw.id);
  if (!id) throw new MalformedResponseError('slot id is not an exact non-negative integer', responseStatus);
  const { access_token } = raw;
  if (typeof access_token !== 'string') {
    throw new MalformedResponseError('slot has no access_token', responseStatus);
  }
  const slot: SlotInfo = { id, access_token };
  for (const key of OPTIONAL_STRINGS) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') {
      throw new MalformedResponseError(`slot ${key} is not a string`, responseStatus);
    }
    slot[key] = value;
  }
  for (const key of OPTIONAL_NUMBERS) {
    const value = raw[key];
    if (value === undefined || value === null) continue;
    // Counters and seconds: a JSON number with an integral value (3600.0 counts), as in Python and Go.
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw new MalformedResponseError(`slot ${key} is not an integer`, responseStatus);
    }
    slot[key] = value;
  }
  return slot;
}
