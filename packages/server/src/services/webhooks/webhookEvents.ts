/**
 * The event types of decisions §8 "Events" (docs/webhooks.md lists each one's `data`). The two `session_key.`
 * types are written by `stores/sessionKeyStore.ts` (docs/session-keys.md), `user.deleted` by
 * `stores/accountLifeStore.ts` (decisions §9, docs/account.md), `sponsorship.exhausted` by the per-app
 * sponsorship policy (`composition/sponsorship.ts`, docs/sponsorship.md).
 */
export const WEBHOOK_EVENT_TYPES = [
  'grant.created',
  'grant.revoked',
  'status.changed',
  'slot.created',
  'slot.transferred',
  'market.listing.sold',
  'content.purchased',
  'content.consumed',
  'content.released',
  'session_key.granted',
  'session_key.revoked',
  'user.deleted',
  'sponsorship.exhausted',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (value: string): value is WebhookEventType =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
