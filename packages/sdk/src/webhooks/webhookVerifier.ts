import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * dauth's webhook events (docs/webhooks.md). Every `data` carries `client_id`; ids are strings (slot
 * ids as 19-digit decimal strings), amounts decimal strings, and `tx_hash` where there is one.
 */
export interface WebhookEventData {
  'grant.created': { client_id: string; grant_id: string; user_id: string; slot_id?: string; scope?: string };
  'grant.revoked': { client_id: string; grant_id: string; user_id: string; reason: string };
  'status.changed': {
    client_id: string;
    user_id: string;
    status: 'logged_in' | 'logged_out';
    previous: 'logged_in' | 'logged_out' | null;
  };
  'slot.created': {
    client_id: string;
    slot_id: string;
    user_id: string;
    meta_idx: number;
    content_address: string;
  };
  'slot.transferred': {
    client_id: string;
    slot_id: string;
    from_user_id: string;
    to_user_id: string;
    reason?: string;
    tx_hash?: string;
  };
  'market.listing.sold': {
    client_id: string;
    listing_id: string;
    slot_id: string;
    seller_user_id: string;
    buyer_user_id: string;
    price: string;
    tx_hash?: string;
  };
  'content.purchased': {
    client_id: string;
    cuid: string;
    slot_id: string;
    slot_address: string;
    user_id: string;
    amount: string;
    native_paid: string;
    platform_fee: string;
    provider_received: string;
    tx_hash: string;
  };
  'content.consumed': {
    client_id: string;
    record_id: string;
    cuid: string;
    slot_id: string;
    slot_address: string;
    amount: string;
    request_key?: string;
    balance_after: string;
    used_after: string;
    tx_hash: string;
    block_number: string;
  };
  'content.released': {
    client_id: string;
    cuid: string;
    slot_address: string;
    usage: string;
    amount: string;
    tx_hash: string;
  };
  /** The player granted the app a session key (docs/session-keys.md); `valid_until` is ISO 8601 UTC. */
  'session_key.granted': {
    client_id: string;
    user_uuid: string;
    session_key: string;
    valid_until: string;
    tx_hash: string | null;
  };
  /** The app's session key was revoked (by the player, the key itself, a revoked grant or a password reset). */
  'session_key.revoked': {
    client_id: string;
    user_uuid: string;
    session_key: string;
    valid_until: string;
    tx_hash: string | null;
  };
  /** The player deleted their account (docs/account.md): forget what the app keeps about `user_id`. */
  'user.deleted': { client_id: string; user_id: string };
  /**
   * The first operation of a UTC day one of the app's own sponsorship budgets refused (docs/sponsorship.md):
   * once per app and day.
   */
  'sponsorship.exhausted': {
    client_id: string;
    budget: 'daily_gas_per_player' | 'daily_gas_per_guest' | 'daily_gas_app' | 'ops_per_player_per_minute';
    /** YYYY-MM-DD (UTC). */
    day: string;
  };
}

export type WebhookEventType = keyof WebhookEventData;

/** One verified delivery: `id` is its `webhook-id` (the same on every retry: deduplicate by it). */
export type WebhookEvent = {
  [T in WebhookEventType]: { id: string; type: T; timestamp: string; data: WebhookEventData[T] };
}[WebhookEventType];

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Headers as Node gives them (lower-case names; a value may be an array) or a fetch `Headers`. */
export type WebhookHeaders =
  Record<string, string | string[] | undefined> | { get(name: string): string | null };

export interface VerifyOptions {
  /** Seconds a delivery's `webhook-timestamp` may differ from now (replay window); 300 as the spec says. */
  toleranceSeconds?: number;
  /** The clock (tests). */
  now?: () => number;
}

const PREFIX = 'whsec_';

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a dauth webhook delivery (Standard Webhooks: HMAC-SHA256 over `id.timestamp.body` with the
 * endpoint's `whsec_` secret) and returns the typed event. `body` must be the raw request body, exactly
 * as received. Any `v1,` signature of the header may match (during a secret rotation there are two);
 * signatures are compared in constant time; a timestamp outside the tolerance is refused (replays).
 * `secrets` may list several (your new and old secret while you roll one out).
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing required headers');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('Invalid Signature Headers');
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  const sent = Number(timestamp);
  if (now - sent > tolerance) throw new WebhookVerificationError('Message timestamp too old');
  if (sent - now > tolerance) throw new WebhookVerificationError('Message timestamp too new');

  const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), raw]);
  const offered = signatures
    .split(' ')
    .map((s) => s.split(','))
    .filter(([version, value]) => version === 'v1' && value)
    .map(([, value]) => Buffer.from(value!, 'base64'));
  const keys = (typeof secrets === 'string' ? [secrets] : secrets).map(secretKey);
  let valid = false;
  for (const key of keys) {
    const expected = createHmac('sha256', key).update(signed).digest();
    for (const candidate of offered) {
      // Every comparison runs (no early exit on a match), each in constant time.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) valid = true;
    }
  }
  if (!valid) throw new WebhookVerificationError('No matching signature found');

  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
  const event = parsed as { type?: unknown; timestamp?: unknown; data?: unknown };
  if (
    typeof event.type !== 'string' ||
    typeof event.timestamp !== 'string' ||
    typeof event.data !== 'object'
  ) {
    throw new WebhookVerificationError('The body is not a dauth event');
  }
  return { id, type: event.type, timestamp: event.timestamp, data: event.data } as WebhookEvent;
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}
