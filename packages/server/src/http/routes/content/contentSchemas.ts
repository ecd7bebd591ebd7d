import { Type } from 'typebox';

/** Schemas the content-token routes (`/v1/development-api/*`) share. */

export const ClientId = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'The OAuth client (app) id',
});
export const Cuid = Type.String({ minLength: 1, maxLength: 128, description: 'Content id (one per game)' });
export const SlotAddress = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'The slot (content wallet) address',
});
export const Amount = (description: string) => Type.String({ description });
export const PayloadMode = Type.Union([Type.Literal('ctr'), Type.Literal('ctr+gcm'), Type.Literal('gcm')], {
  description:
    '`ctr`: the spec’s AES-256-CTR form only (default); `ctr+gcm`: both forms, while migrating; `gcm`: the authenticated form is required',
});

export const ConsumeAuth = Type.Union([Type.Literal('none'), Type.Literal('client_secret')], {
  description:
    '`none`: the spec’s anonymous consumption, authenticated by the payload alone (default); `client_secret`: every consumption call must carry the app’s client_id and client_secret as HTTP Basic, and a request_id in its payload',
});

export const ConsumptionResult = Type.Object({
  success: Type.Boolean(),
  tx_hash: Type.String({ description: 'The transaction that carried this record' }),
  balance: Amount('The slot’s balance of the cuid right after this record'),
  used_balances: Amount('The slot’s used balance of the cuid right after this record'),
  cuid: Type.String(),
  slot: Type.String({ description: 'The slot (content wallet) address' }),
  user_dbkey: Type.String(),
  amount: Type.String(),
  request_id: Type.Optional(Type.String()),
});

export const QueuedResult = Type.Object({
  success: Type.Boolean(),
  status: Type.Literal('queued'),
  message: Type.String(),
  cuid: Type.String(),
  slot: Type.String(),
  user_dbkey: Type.String(),
  amount: Type.String(),
  request_id: Type.Optional(Type.String()),
});
