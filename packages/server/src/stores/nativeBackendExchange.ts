import type SQLite from 'better-sqlite3';
import type { Db } from '../db/database.js';
import { type ClientRowCheck, clientRowParameters } from './oauthGrantStore.js';
import type { SlotsTable } from './slotStore.js';
import type { OutboxEvent, WebhookOutbox } from './webhookStore.js';

export interface BackendExchangeInput {
  codeHash: string;
  clientId: string;
  now: number;
  grantId: string;
  tokenHash: string;
  tokenExpiresAt: number;
  /** The client as a cache held it: checked against the stored row inside the commit. */
  clientRow: ClientRowCheck | undefined;
  /** The `grant.created` event of the opened grant, for the outbox write in the same commit. */
  event: (userUuid: number, slotId: string) => OutboxEvent;
}

export type BackendExchangeRow =
  | { redeemed: false }
  | { redeemed: true; userUuid: number; slotRow: SlotsTable | undefined; queued: boolean };

/** The exchange on SQLite's native handle: alone in its own transaction, or a batch sharing one. */
export interface NativeBackendExchange {
  one(input: BackendExchangeInput): BackendExchangeRow;
  all(inputs: readonly BackendExchangeInput[]): BackendExchangeRow[];
}

/**
 * `OAuthGrantStore.exchangeBackendCode` on SQLite as native better-sqlite3 transactions: the same
 * statements as its Kysely path (the conditional redemption, the slot row, the grant, its refresh token,
 * the outbox write), run synchronously, with no query compilation, no connection mutex
 * and no promise per statement. get_token runs it once per round trip (docs/performance-backend.md,
 * rounds 5 and 6): `all` commits the exchanges of one event-loop turn together (`GroupCommit`), `one` a
 * single exchange. Each exchange's statements are independent of the others' (two exchanges of one code in
 * a batch: the first redeems it, the second finds it used), so a batch decides what the same exchanges
 * would one after the other. The caller takes these only while no Kysely transaction holds the connection
 * (`nativeSqlite`).
 */
export function nativeBackendExchange(
  native: SQLite.Database,
  db: Db,
  outbox: WebhookOutbox | undefined,
): NativeBackendExchange {
  // `@check = 0`: the caller read the client from the database in this request; otherwise the stored row
  // must match the cached one (a change on another replica whose invalidation has not arrived yet).
  const redeem = native.prepare<
    Record<string, unknown>,
    { user_uuid: number; slot_id: string; grant_id: string | null }
  >(`update backend_codes set used_at = @now,
        grant_id = case when exists (select 1 from slots s
                                     where s.id = backend_codes.slot_id and s.owner_uuid = backend_codes.user_uuid
                                       and s.client_id = backend_codes.client_id and s.state <> 'pending')
                        then @grantId end
      where code_hash = @codeHash and client_id = @clientId and used_at is null and expires_at > @now
        and (@check = 0 or exists (select 1 from oauth_clients c
              where c.client_id = backend_codes.client_id and c.deleted_at is null
                and c.secret_hash = @secretHash and c.previous_secret_hash is @previousSecretHash
                and c.previous_secret_expires_at is @previousSecretExpiresAt and c.dapp = @dapp))
      returning user_uuid, slot_id, grant_id`);
  const slotById = native.prepare<[string], SlotsTable>('select * from slots where id = ?');
  const grantInsert = native.prepare(
    'insert into oauth_grants (grant_id, client_id, user_uuid, created_at) values (?, ?, ?, ?)',
  );
  const tokenInsert = native.prepare(`insert into oauth_refresh_tokens
      (token_hash, grant_id, client_id, user_uuid, created_at, expires_at) values (?, ?, ?, ?, ?, ?)`);
  // The outbox's own statement, prepared once per event type (`WebhookOutbox.nativeWriter`).
  const writeOutbox = outbox?.nativeWriter(native, db);
  const exchange = (input: BackendExchangeInput): BackendExchangeRow => {
    const row = redeem.get({
      now: input.now,
      grantId: input.grantId,
      codeHash: input.codeHash,
      clientId: input.clientId,
      ...clientRowParameters(input.clientRow),
    });
    if (!row) return { redeemed: false };
    const userUuid = Number(row.user_uuid);
    if (row.grant_id === null) return { redeemed: true, userUuid, slotRow: undefined, queued: false };
    const slotRow = slotById.get(row.slot_id);
    grantInsert.run(input.grantId, input.clientId, row.user_uuid, input.now);
    tokenInsert.run(
      input.tokenHash,
      input.grantId,
      input.clientId,
      row.user_uuid,
      input.now,
      input.tokenExpiresAt,
    );
    const queued = writeOutbox ? writeOutbox(input.event(userUuid, row.slot_id)) : false;
    return { redeemed: true, userUuid, slotRow, queued };
  };
  return {
    one: native.transaction(exchange),
    all: native.transaction((inputs: readonly BackendExchangeInput[]) => inputs.map(exchange)),
  };
}
