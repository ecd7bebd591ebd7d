import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type SQLite from 'better-sqlite3';
import { type Database, type Db, nativeSqlite } from '../db/database.js';
import { GroupCommit } from '../db/groupCommit.js';
import { affected } from './kyselyResults.js';
import {
  type BackendExchangeInput,
  type BackendExchangeRow,
  nativeBackendExchange,
  type NativeBackendExchange,
} from './nativeBackendExchange.js';
import { type Slot, type SlotsTable, toSlot } from './slotStore.js';
import { newMessageId, type OutboxEvent, subscribedTo, type WebhookOutbox } from './webhookStore.js';

export interface OAuthGrantsTable {
  grant_id: string;
  client_id: string;
  user_uuid: number;
  created_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
  /** OpenID Connect grants only (migration 0060): the granted scope and the authentication time (ms). */
  scope: string | null;
  auth_time: number | null;
  /** Migration 0250: the `amr` (RFC 8176, space-separated) of the sign-in that opened the grant. */
  amr: string | null;
  /** Where it was authorized, and the last rotation of its refresh token (migration 0260). */
  user_agent: string | null;
  network: string | null;
  last_used_at: number | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  grant_id: string;
  client_id: string;
  user_uuid: number;
  redirect_uri: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** OpenID Connect codes only (migration 0060). */
  scope: string | null;
  nonce: string | null;
  auth_time: number | null;
  /** Migration 0250: as the grant's. */
  amr: string | null;
}

export interface OAuthRefreshTokensTable {
  token_hash: string;
  grant_id: string;
  client_id: string;
  user_uuid: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  successor_hash: string | null;
  successor_sealed: string | null;
}

declare module '../db/database.js' {
  interface Database {
    oauth_grants: OAuthGrantsTable;
    oauth_codes: OAuthCodesTable;
    oauth_refresh_tokens: OAuthRefreshTokensTable;
  }
}

/**
 * What a cached client row said about the app (docs/oauth.md, "The client cache"): the redemption commits
 * only if the stored row still says the same, so a row another replica changed a moment ago is never used.
 */
export interface ClientRowCheck {
  secretHash: string;
  previousSecretHash: string | null;
  previousSecretExpiresAt: number | null;
  dapp: boolean;
}

/** A `ClientRowCheck` as the named parameters of a native statement's "unchanged client row" condition. */
export function clientRowParameters(check: ClientRowCheck | undefined) {
  return {
    check: check ? 1 : 0,
    secretHash: check?.secretHash ?? null,
    previousSecretHash: check?.previousSecretHash ?? null,
    previousSecretExpiresAt: check?.previousSecretExpiresAt ?? null,
    dapp: check?.dapp ? 1 : 0,
  };
}

export interface RedeemInput {
  codeHash: string;
  now: number;
  clientId: string;
  redirectUri: string;
  /** S256 of the presented code_verifier, or null when none was presented. */
  codeChallenge: string | null;
  /** The app's row as the caller authenticated it: refused (undefined) unless the stored row matches. */
  clientRow?: ClientRowCheck | undefined;
}
export interface FirstRefreshToken {
  tokenHash: string;
  expiresAt: number;
}
type NativeRedeem = (input: RedeemInput, token: FirstRefreshToken) => OAuthCodesTable | undefined;
/** One code exchange's commit: the code to consume and the refresh token stored exactly when it is. */
interface Redemption {
  input: RedeemInput;
  token: FirstRefreshToken;
}

/** One authorization: created with its code; every token issued from that code carries its id. */
export interface GrantRecord {
  grantId: string;
  clientId: string;
  userUuid: number;
  createdAt: number;
  revokedAt: number | null;
  revokedReason: string | null;
  /** Set for OpenID Connect authorizations (scope contains `openid`): see `OidcGrant`. */
  oidc?: OidcGrant | undefined;
  /** How the user signed in for this grant (RFC 8176), when the path that opened it knew (docs/oidc.md). */
  amr?: string[] | undefined;
  /** The authorizing browser, where known (the code flow, a device approval). */
  device?: { userAgent?: string | undefined; network?: string | undefined } | undefined;
}

/**
 * What an OpenID Connect authorization remembers for its tokens: the granted scope, the request's
 * `nonce` (codes only; an `id_token` from a refresh carries none) and when the user authenticated.
 */
export interface OidcGrant {
  scope: string;
  nonce?: string | undefined;
  /** Milliseconds since the epoch. */
  authTime: number;
  /** How the user signed in (RFC 8176), when known: the `id_token`'s `amr` (and `acr`). */
  amr?: string[] | undefined;
}

export interface CodeRecord {
  codeHash: string;
  grantId: string;
  clientId: string;
  userUuid: number;
  redirectUri: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  oidc?: OidcGrant | undefined;
  amr?: string[] | undefined;
}

export interface RefreshTokenRecord {
  tokenHash: string;
  grantId: string;
  clientId: string;
  userUuid: number;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  successorHash: string | null;
  successorSealed: string | null;
}

/** A live grant as the account's Security page lists it. */
export type LiveGrant = GrantRecord & { lastUsedAt?: number | undefined };

const toGrant = (r: OAuthGrantsTable): GrantRecord => ({
  grantId: r.grant_id,
  clientId: r.client_id,
  userUuid: Number(r.user_uuid),
  createdAt: Number(r.created_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  revokedReason: r.revoked_reason,
  ...oidcOf(r.scope, null, r.auth_time, r.amr),
  ...amrOf(r.amr),
});

/** The OIDC part of a row: present only when the row was written for an `openid` authorization. */
function oidcOf(
  scope: string | null,
  nonce: string | null,
  authTime: number | string | null,
  amr: string | null,
): { oidc?: OidcGrant } {
  if (scope === null || authTime === null) return {};
  return {
    oidc: {
      scope,
      authTime: Number(authTime),
      ...(nonce !== null ? { nonce } : {}),
      ...amrOf(amr),
    },
  };
}

/** The stored `amr` (space-separated), absent on rows from before migration 0250 or paths that keep none. */
const amrOf = (amr: string | null | undefined): { amr?: string[] } => (amr ? { amr: amr.split(' ') } : {});

const amrColumn = (amr: readonly string[] | undefined): string | null =>
  amr && amr.length > 0 ? amr.join(' ') : null;

const toCode = (r: OAuthCodesTable): CodeRecord => ({
  codeHash: r.code_hash,
  grantId: r.grant_id,
  clientId: r.client_id,
  userUuid: Number(r.user_uuid),
  redirectUri: r.redirect_uri,
  codeChallenge: r.code_challenge,
  codeChallengeMethod: r.code_challenge_method,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at === null ? null : Number(r.used_at),
  ...oidcOf(r.scope, r.nonce, r.auth_time, r.amr),
  ...amrOf(r.amr),
});

const toRefresh = (r: OAuthRefreshTokensTable): RefreshTokenRecord => ({
  tokenHash: r.token_hash,
  grantId: r.grant_id,
  clientId: r.client_id,
  userUuid: Number(r.user_uuid),
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  usedAt: r.used_at === null ? null : Number(r.used_at),
  successorHash: r.successor_hash,
  successorSealed: r.successor_sealed,
});

const refreshRow = (t: RefreshTokenRecord): OAuthRefreshTokensTable => ({
  token_hash: t.tokenHash,
  grant_id: t.grantId,
  client_id: t.clientId,
  user_uuid: t.userUuid,
  created_at: t.createdAt,
  expires_at: t.expiresAt,
  used_at: t.usedAt,
  successor_hash: t.successorHash,
  successor_sealed: t.successorSealed,
});

/**
 * Inserts a grant with its authorization code inside the caller's transaction (the code flow's
 * `createGrantWithCode`, and the device grant's approval, which changes its own row in the same commit).
 */
export async function insertGrantWithCode(
  trx: Transaction<Database>,
  grant: GrantRecord,
  code: CodeRecord,
  outbox?: WebhookOutbox,
) {
  await trx
    .insertInto('oauth_grants')
    .values({
      grant_id: grant.grantId,
      client_id: grant.clientId,
      user_uuid: grant.userUuid,
      created_at: grant.createdAt,
      revoked_at: null,
      revoked_reason: null,
      scope: grant.oidc?.scope ?? null,
      auth_time: grant.oidc?.authTime ?? null,
      amr: amrColumn(grant.amr),
      user_agent: grant.device?.userAgent ?? null,
      network: grant.device?.network ?? null,
    })
    .execute();
  await trx
    .insertInto('oauth_codes')
    .values({
      code_hash: code.codeHash,
      grant_id: code.grantId,
      client_id: code.clientId,
      user_uuid: code.userUuid,
      redirect_uri: code.redirectUri,
      code_challenge: code.codeChallenge,
      code_challenge_method: code.codeChallengeMethod,
      created_at: code.createdAt,
      expires_at: code.expiresAt,
      used_at: null,
      scope: code.oidc?.scope ?? null,
      nonce: code.oidc?.nonce ?? null,
      auth_time: code.oidc?.authTime ?? null,
      amr: amrColumn(code.amr),
    })
    .execute();
  // Every path that opens a grant with a code (the code flow, a device approval) reports it.
  await outbox?.record(trx, grantCreated(grant));
}

/**
 * The condition a redemption adds when its client came from the cache: the stored row (live) still has the
 * secret, the rotated-out secret and the dapp flag the cached row had. Nothing when the client was read
 * from the database in this request.
 */
function clientRowUnchanged(check: ClientRowCheck | undefined, clientId: ReturnType<typeof sql.ref>) {
  if (!check) return sql``;
  return sql`and exists (select 1 from oauth_clients c
              where c.client_id = ${clientId} and c.deleted_at is null
                and c.secret_hash = ${check.secretHash}
                and c.previous_secret_hash is not distinct from ${check.previousSecretHash}
                and c.previous_secret_expires_at is not distinct from ${check.previousSecretExpiresAt}
                and c.dapp = ${check.dapp ? 1 : 0})`;
}

/**
 * `clientRowUnchanged` for a PostgreSQL batch: each input row `i` carries its held client row (`check_client`
 * false when the client was read from the database in that request).
 */
function inputClientRowUnchanged(clientId: ReturnType<typeof sql.ref>) {
  return sql`(not i.check_client or exists (select 1 from oauth_clients c
                where c.client_id = ${clientId} and c.deleted_at is null
                  and c.secret_hash = i.secret_hash
                  and c.previous_secret_hash is not distinct from i.previous_secret_hash
                  and c.previous_secret_expires_at is not distinct from i.previous_secret_expires_at
                  and c.dapp = i.dapp))`;
}

/** get_token's exchange of a backend code (`OAuthGrantStore.exchangeBackendCode`). */
export interface BackendExchangeRequest {
  codeHash: string;
  clientId: string;
  now: number;
  grantId: string;
  refreshToken: { tokenHash: string; expiresAt: number };
  /**
   * The app's row as a cache held it (`ClientService.checkClientSecretCached`): nothing is redeemed unless
   * the stored row still matches (`redeemed: false`, as for any other refusal).
   */
  clientRow?: ClientRowCheck | undefined;
}

export type BackendExchange =
  { redeemed: false } | { redeemed: true; userUuid: number; slot: Slot | undefined };

const nativeExchangeInput = (request: BackendExchangeRequest): BackendExchangeInput => ({
  codeHash: request.codeHash,
  clientId: request.clientId,
  now: request.now,
  grantId: request.grantId,
  tokenHash: request.refreshToken.tokenHash,
  tokenExpiresAt: request.refreshToken.expiresAt,
  clientRow: request.clientRow,
  event: (userUuid, slotId) =>
    grantCreated(
      { grantId: request.grantId, clientId: request.clientId, userUuid, createdAt: request.now },
      slotId,
    ),
});

/** Thrown inside a transaction to roll it back when a conditional update lost its race. */
class LostRace extends Error {}

/**
 * Grants, authorization codes and refresh tokens. Codes and refresh tokens are stored as SHA-256
 * hashes only. Every race (two redemptions of one code, two rotations of one refresh token, a
 * revocation during either) is settled by a conditional UPDATE checked by its affected-row count,
 * inside a transaction where a second table changes with it.
 */
export class OAuthGrantStore {
  /** PostgreSQL runs data-modifying CTEs; SQLite does not (see `redeemCode`). */
  readonly #postgres: boolean;
  /** SQLite's better-sqlite3 handle, for the code exchange's one transaction (`nativeSqlite`). */
  readonly #native: SQLite.Database | undefined;
  #nativeRedeemFn: NativeRedeem | undefined;
  #nativeStatementsFn: NativeRedeem | undefined;
  /** The code exchange's group commit (PostgreSQL, SQLite's native path); undefined where each commits alone. */
  readonly #redemptions: GroupCommit<Redemption, OAuthCodesTable | undefined> | undefined;
  /** get_token's exchanges, committed a turn at a time; undefined on a traced SQLite (each commits alone). */
  readonly #backendExchanges: GroupCommit<BackendExchangeRequest, BackendExchange> | undefined;

  /** `outbox`: opening and revoking a grant write `grant.created` / `grant.revoked` in the same transaction. */
  constructor(
    private readonly db: Db,
    private readonly outbox?: WebhookOutbox,
  ) {
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.#native = nativeSqlite(db);
    this.#redemptions = this.#groupCommit();
    this.#backendExchanges = this.#native
      ? this.#backendExchangeGroupCommit(this.#native)
      : this.#postgres
        ? new GroupCommit({
            all: (requests) => this.#exchangeAllOnPostgres(requests),
            one: (request) => this.#exchangeBackendCodeWithKysely(request),
          })
        : undefined;
  }

  async createGrantWithCode(grant: GrantRecord, code: CodeRecord): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await insertGrantWithCode(trx, grant, code, this.outbox);
    });
  }

  /**
   * A grant opened without a code, with its first refresh token, in one transaction (on PostgreSQL
   * one statement: data-modifying CTEs). The get_token exchange uses `exchangeBackendCode`.
   */
  async createGrantWithRefreshToken(grant: GrantRecord, refreshToken: RefreshTokenRecord): Promise<void> {
    if (this.#postgres) {
      const t = refreshRow(refreshToken);
      const outboxWrite = this.outbox ? sql`, w as (${this.outbox.statement(grantCreated(grant))})` : sql``;
      await sql`with g as (insert into oauth_grants (grant_id, client_id, user_uuid, created_at)
          values (${grant.grantId}, ${grant.clientId}, ${grant.userUuid}, ${grant.createdAt}))${outboxWrite}
        insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid,
          created_at, expires_at, used_at, successor_hash, successor_sealed)
        values (${t.token_hash}, ${t.grant_id}, ${t.client_id}, ${t.user_uuid}, ${t.created_at},
          ${t.expires_at}, ${t.used_at}, ${t.successor_hash}, ${t.successor_sealed})`.execute(this.db);
      // The CTE's count is not returned: tell the worker as before (a claim that may find nothing).
      this.outbox?.queued();
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('oauth_grants')
        .values({
          grant_id: grant.grantId,
          client_id: grant.clientId,
          user_uuid: grant.userUuid,
          created_at: grant.createdAt,
          revoked_at: null,
          revoked_reason: null,
          scope: null,
          auth_time: null,
          amr: null,
        })
        .execute();
      await trx.insertInto('oauth_refresh_tokens').values(refreshRow(refreshToken)).execute();
      await this.outbox?.record(trx, grantCreated(grant));
    });
  }

  /**
   * The backend-integration code exchange (get_token) in one commit: redeems the code if it is
   * `clientId`'s, unused and unexpired at `now`; checks that the code's slot is still its user's
   * (same owner and app, not pending); and, only then, opens the grant `grantId` with its first
   * refresh token and records the grant on the code (so a replay of the code can revoke it).
   *
   * - `redeemed: false`: nothing was written (the caller reads the code to say why).
   * - `slot: undefined`: the code is spent but the slot is no longer the user's (sold, or gone):
   *   no grant is opened and the code records none.
   * - otherwise the code's user, its slot, and the grant and refresh token are committed with it.
   *
   * Replaces a redemption, a slot read and the grant's transaction (begin, two inserts, the link,
   * commit): on SQLite one transaction of six statements and one WAL commit instead of seven and
   * two; on PostgreSQL one statement (data-modifying CTEs) instead of three round trips. A kill at
   * any moment leaves the code unspent with no grant, or spent with its grant, token and link. On
   * SQLite outside a Kysely transaction the same statements run natively (`nativeBackendExchange`). The
   * exchanges of one event-loop turn share one commit (`GroupCommit`: each answered only after it): one
   * native transaction on SQLite, one statement on PostgreSQL (`#exchangeAllOnPostgres`).
   */
  async exchangeBackendCode(input: BackendExchangeRequest): Promise<BackendExchange> {
    return this.#backendExchanges
      ? this.#backendExchanges.submit(input)
      : this.#exchangeBackendCodeWithKysely(input);
  }

  /** How many get_token exchanges the group commit has committed, in how many batches (tests, benchmarks). */
  backendExchangeBatches(): { batches: number; exchanges: number } {
    return { batches: this.#backendExchanges?.batches ?? 0, exchanges: this.#backendExchanges?.inputs ?? 0 };
  }

  /**
   * On SQLite's native handle the exchanges of one event-loop turn share one transaction and one WAL commit
   * (the commit was the largest single cost of a round trip's SQL: docs/performance-backend.md, round 6);
   * inside a Kysely transaction, or retried alone after a batch failed, each takes its own.
   */
  #backendExchangeGroupCommit(native: SQLite.Database): GroupCommit<BackendExchangeRequest, BackendExchange> {
    let statements: NativeBackendExchange | undefined;
    // Prepared at the first exchange: the store is built before the schema is migrated.
    const prepared = () => (statements ??= nativeBackendExchange(native, this.db, this.outbox));
    return new GroupCommit<BackendExchangeRequest, BackendExchange>({
      all: (requests) => this.#afterNativeExchanges(prepared().all(requests.map(nativeExchangeInput))),
      one: (request) =>
        native.inTransaction
          ? this.#exchangeBackendCodeWithKysely(request)
          : this.#afterNativeExchanges([prepared().one(nativeExchangeInput(request))])[0]!,
      ready: () => !native.inTransaction,
    });
  }

  /**
   * A batch of exchanges on PostgreSQL as one statement (one round trip, one WAL flush): the inputs as
   * arrays, `unnest`ed into rows, joined to the same conditional redemption, and the grants, refresh tokens
   * and `grant.created` deliveries inserted from its RETURNING, each row carrying its input's values. Each
   * redeemed code comes back with the refresh token hash of the input that redeemed it, which says whose it
   * is. Two inputs for one code in one batch: PostgreSQL updates the row once, with one of them; the other
   * gets nothing back and is refused, as it would be one after the other.
   */
  async #exchangeAllOnPostgres(requests: readonly BackendExchangeRequest[]): Promise<BackendExchange[]> {
    const column = <T>(pick: (request: BackendExchangeRequest) => T): T[] => requests.map(pick);
    const type = 'grant.created';
    const outboxWrite = this.outbox
      ? sql`, w as (insert into webhook_deliveries (endpoint_id, msg_id, client_id, type, payload, order_key,
            state, attempts, next_attempt_at, lease_until, created_at)
          select e.id, r.msg_id, r.client_id, ${type},
            json_build_object('type', ${type}::text, 'timestamp', r.event_time,
              'data', json_build_object('client_id', r.client_id, 'grant_id', r.grant_id,
                'user_id', r.user_uuid::text, 'slot_id', r.slot_id))::text,
            null, 'pending', 0, r.now, 0, r.now
          from redeemed r join webhook_endpoints e on e.client_id = r.client_id
          where r.grant_id is not null and e.deleted_at is null and ${subscribedTo(sql.ref('e.events'), type)}
          returning 1)`
      : sql``;
    const { rows } = await sql<
      Partial<SlotsTable> & {
        code_user_uuid: number | string;
        code_grant_id: string | null;
        code_redeemed_by: string;
        code_queued: number | string;
      }
    >`with input as (
        select * from unnest(${column((r) => r.codeHash)}::text[], ${column((r) => r.clientId)}::text[],
          ${column((r) => r.now)}::bigint[], ${column((r) => r.grantId)}::text[],
          ${column((r) => r.refreshToken.tokenHash)}::text[], ${column((r) => r.refreshToken.expiresAt)}::bigint[],
          ${column((r) => r.clientRow !== undefined)}::boolean[],
          ${column((r) => r.clientRow?.secretHash ?? null)}::text[],
          ${column((r) => r.clientRow?.previousSecretHash ?? null)}::text[],
          ${column((r) => r.clientRow?.previousSecretExpiresAt ?? null)}::bigint[],
          ${column((r) => (r.clientRow?.dapp ? 1 : 0))}::int[],
          ${column((r) => newMessageId(r.now))}::text[], ${column((r) => new Date(r.now).toISOString())}::text[])
          as i(code_hash, client_id, now, grant_id, token_hash, token_expires_at, check_client, secret_hash,
               previous_secret_hash, previous_secret_expires_at, dapp, msg_id, event_time)),
      redeemed as (update backend_codes set used_at = i.now,
          grant_id = case when exists (select 1 from slots s
                                       where s.id = backend_codes.slot_id and s.owner_uuid = backend_codes.user_uuid
                                         and s.client_id = backend_codes.client_id and s.state <> 'pending')
                          then i.grant_id end
        from input i
        where backend_codes.code_hash = i.code_hash and backend_codes.client_id = i.client_id
          and backend_codes.used_at is null and backend_codes.expires_at > i.now
          and ${inputClientRowUnchanged(sql.ref('backend_codes.client_id'))}
        returning backend_codes.user_uuid, backend_codes.slot_id, backend_codes.grant_id, backend_codes.client_id,
          i.now, i.token_hash, i.token_expires_at, i.msg_id, i.event_time),
      g as (insert into oauth_grants (grant_id, client_id, user_uuid, created_at)
        select grant_id, client_id, user_uuid, now from redeemed where grant_id is not null),
      t as (insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid, created_at, expires_at)
        select token_hash, grant_id, client_id, user_uuid, now, token_expires_at from redeemed
        where grant_id is not null)${outboxWrite}
      select r.user_uuid as code_user_uuid, r.grant_id as code_grant_id, r.token_hash as code_redeemed_by,
        ${this.outbox ? sql`(select count(*) from w)` : sql`0`} as code_queued, s.*
      from redeemed r left join slots s on s.id = r.slot_id`.execute(this.db);
    const byToken = new Map<string, BackendExchange>();
    let queued = false;
    for (const { code_user_uuid, code_grant_id, code_redeemed_by, code_queued, ...slotRow } of rows) {
      if (Number(code_queued) > 0) queued = true;
      const slot = code_grant_id !== null && slotRow.id != null ? toSlot(slotRow as SlotsTable) : undefined;
      byToken.set(code_redeemed_by, { redeemed: true, userUuid: Number(code_user_uuid), slot });
    }
    // The worker is woken only when an event found a subscribed endpoint.
    if (queued) this.outbox?.queued();
    return requests.map((r) => byToken.get(r.refreshToken.tokenHash) ?? { redeemed: false });
  }

  /** After a native exchange's commit: the worker looks for the deliveries that now exist. */
  #afterNativeExchanges(rows: readonly BackendExchangeRow[]): BackendExchange[] {
    if (rows.some((row) => row.redeemed && row.queued)) this.outbox?.queued();
    return rows.map((row) =>
      row.redeemed
        ? { redeemed: true, userUuid: row.userUuid, slot: row.slotRow && toSlot(row.slotRow) }
        : { redeemed: false },
    );
  }

  async #exchangeBackendCodeWithKysely(input: BackendExchangeRequest): Promise<BackendExchange> {
    const { codeHash, clientId, now, grantId, clientRow } = input;
    const { tokenHash, expiresAt } = input.refreshToken;
    const redeem = sql`update backend_codes set used_at = ${now},
        grant_id = case when exists (select 1 from slots s
                                     where s.id = backend_codes.slot_id and s.owner_uuid = backend_codes.user_uuid
                                       and s.client_id = backend_codes.client_id and s.state <> 'pending')
                        then ${grantId} end
      where code_hash = ${codeHash} and client_id = ${clientId} and used_at is null and expires_at > ${now}
        ${clientRowUnchanged(clientRow, sql.ref('backend_codes.client_id'))}
      returning user_uuid, slot_id, grant_id`;
    const grantInsert = sql`insert into oauth_grants (grant_id, client_id, user_uuid, created_at)
      select grant_id, ${clientId}, user_uuid, ${now} from redeemed where grant_id is not null`;
    const tokenInsert = sql`insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid,
        created_at, expires_at)
      select ${tokenHash}, grant_id, ${clientId}, user_uuid, ${now}, ${expiresAt} from redeemed
      where grant_id is not null`;
    type Redeemed = { user_uuid: number | string; slot_id: string; grant_id: string | null };
    if (this.#postgres) {
      // The slot's columns as they are (slots has no column named like the code's two).
      const { rows } = await sql<
        Partial<SlotsTable> & {
          code_user_uuid: number | string;
          code_grant_id: string | null;
          code_queued: number | string;
        }
      >`with redeemed as (${redeem}), g as (${grantInsert}), r as (${tokenInsert})${this.#backendGrantEvent(clientId, now)}
        select redeemed.user_uuid as code_user_uuid, redeemed.grant_id as code_grant_id,
          ${this.outbox ? sql`(select count(*) from w)` : sql`0`} as code_queued, s.*
        from redeemed left join slots s on s.id = redeemed.slot_id`.execute(this.db);
      const row = rows[0];
      if (!row) return { redeemed: false };
      const { code_user_uuid, code_grant_id, code_queued, ...slotRow } = row;
      // The worker is woken only when the event found a subscribed endpoint.
      if (Number(code_queued) > 0) this.outbox?.queued();
      const slot = code_grant_id !== null && slotRow.id != null ? toSlot(slotRow as SlotsTable) : undefined;
      return { redeemed: true, userUuid: Number(code_user_uuid), slot };
    }
    return this.db.transaction().execute(async (trx) => {
      const row = (await redeem.execute(trx)).rows[0] as Redeemed | undefined;
      if (!row) return { redeemed: false as const };
      if (row.grant_id === null)
        return { redeemed: true as const, userUuid: Number(row.user_uuid), slot: undefined };
      const slot = (await sql<SlotsTable>`select * from slots where id = ${row.slot_id}`.execute(trx))
        .rows[0];
      await sql`insert into oauth_grants (grant_id, client_id, user_uuid, created_at)
        values (${grantId}, ${clientId}, ${row.user_uuid}, ${now})`.execute(trx);
      await sql`insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid, created_at, expires_at)
        values (${tokenHash}, ${grantId}, ${clientId}, ${row.user_uuid}, ${now}, ${expiresAt})`.execute(trx);
      await this.outbox?.record(
        trx,
        grantCreated({ grantId, clientId, userUuid: Number(row.user_uuid), createdAt: now }, row.slot_id),
      );
      return { redeemed: true as const, userUuid: Number(row.user_uuid), slot: slot && toSlot(slot) };
    });
  }

  /**
   * The backend exchange's `grant.created` as one more data-modifying CTE (PostgreSQL): its user and
   * slot come from the `redeemed` row, so the body is built in SQL, key for key as `eventBody` does.
   */
  #backendGrantEvent(clientId: string, now: number) {
    if (!this.outbox) return sql``;
    const type = 'grant.created';
    return sql`, w as (insert into webhook_deliveries (endpoint_id, msg_id, client_id, type, payload, order_key,
        state, attempts, next_attempt_at, lease_until, created_at)
      select e.id, ${newMessageId(now)}, ${clientId}, ${type},
        json_build_object('type', ${type}::text, 'timestamp', ${new Date(now).toISOString()}::text,
          'data', json_build_object('client_id', ${clientId}::text, 'grant_id', redeemed.grant_id,
            'user_id', redeemed.user_uuid::text, 'slot_id', redeemed.slot_id))::text,
        null, 'pending', 0, ${now}, 0, ${now}
      from webhook_endpoints e, redeemed
      where redeemed.grant_id is not null and e.client_id = ${clientId} and e.deleted_at is null
        and ${subscribedTo(sql.ref('e.events'), type)}
      returning 1)`;
  }

  async findCode(codeHash: string): Promise<CodeRecord | undefined> {
    const row = await this.db
      .selectFrom('oauth_codes')
      .selectAll()
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return row ? toCode(row) : undefined;
  }

  /**
   * Redeems a code and stores the grant's first refresh token in one commit. The code is marked used
   * only if it is unused, unexpired, issued to this client for this redirect URI, its PKCE challenge
   * is the given one (or it has none and none is given), and its grant is not revoked; the refresh
   * token is stored exactly when it was. The UPDATE is the linearization point of concurrent
   * redemptions (exactly one wins). Returns the code's row, or undefined when any condition fails
   * (nothing is written; the caller reads the row to say which).
   *
   * The token endpoint's hottest write, in hand-written SQL (the query builder costs as much as
   * SQLite does here): one statement on PostgreSQL (a data-modifying CTE: one round trip), one
   * transaction on SQLite (one WAL commit instead of two), shared by the redemptions of one event-loop
   * turn (`GroupCommit`: answered only after that commit).
   */
  async redeemCode(
    input: RedeemInput,
    firstRefreshToken: FirstRefreshToken,
  ): Promise<CodeRecord | undefined> {
    const row = this.#redemptions
      ? await this.#redemptions.submit({ input, token: firstRefreshToken })
      : await this.#redeemAlone({ input, token: firstRefreshToken });
    return row ? toCode(row) : undefined;
  }

  /** How many redemptions the group commit has committed, in how many batches (benchmarks, tests). */
  redemptionBatches(): { batches: number; redemptions: number } {
    return { batches: this.#redemptions?.batches ?? 0, redemptions: this.#redemptions?.inputs ?? 0 };
  }

  /**
   * The redemptions of one event-loop turn in one transaction (`GroupCommit`): on PostgreSQL one statement
   * (`#redeemOnPostgres`); on SQLite one native better-sqlite3 transaction running the same two statements
   * per code (none when statements are traced: each then commits alone on the Kysely path). Concurrent
   * redemptions of one code in one batch are settled as before: the first consumes it, the next is refused.
   */
  #groupCommit(): GroupCommit<Redemption, OAuthCodesTable | undefined> | undefined {
    if (this.#postgres) {
      return new GroupCommit({
        all: (items) => this.#redeemOnPostgres(items),
        one: (item) => this.#redeemAlone(item),
      });
    }
    const native = this.#native;
    if (!native) return undefined;
    let batch: ((items: readonly Redemption[]) => (OAuthCodesTable | undefined)[]) | undefined;
    return new GroupCommit({
      all: (items) => {
        batch ??= native.transaction((all: readonly Redemption[]) => {
          const redeem = this.#nativeStatements();
          return all.map((item) => redeem(item.input, item.token));
        });
        return batch(items);
      },
      one: (item) => this.#redeemAlone(item),
      ready: () => !native.inTransaction,
    });
  }

  /**
   * A batch of redemptions on PostgreSQL as one statement (one round trip, one parse and plan, one WAL
   * flush): the inputs as arrays, `unnest`ed into rows; the same conditional UPDATE joined to them and the
   * refresh tokens inserted from its RETURNING. Each consumed code comes back with the refresh token hash
   * of the input that consumed it, which says whose it is. Two inputs for one code in one batch: PostgreSQL
   * updates the row once, with one of them; the other gets nothing back and is refused, as it would be
   * one after the other. Across concurrent statements the row lock settles it as before.
   */
  async #redeemOnPostgres(items: readonly Redemption[]): Promise<(OAuthCodesTable | undefined)[]> {
    const column = <T>(pick: (item: Redemption) => T): T[] => items.map(pick);
    const { rows } = await sql<OAuthCodesTable & { redeemed_by: string }>`with input as (
        select * from unnest(${column((i) => i.input.codeHash)}::text[], ${column((i) => i.input.now)}::bigint[],
          ${column((i) => i.input.clientId)}::text[], ${column((i) => i.input.redirectUri)}::text[],
          ${column((i) => i.input.codeChallenge)}::text[], ${column((i) => i.token.tokenHash)}::text[],
          ${column((i) => i.token.expiresAt)}::bigint[], ${column((i) => i.input.clientRow !== undefined)}::boolean[],
          ${column((i) => i.input.clientRow?.secretHash ?? null)}::text[],
          ${column((i) => i.input.clientRow?.previousSecretHash ?? null)}::text[],
          ${column((i) => i.input.clientRow?.previousSecretExpiresAt ?? null)}::bigint[],
          ${column((i) => (i.input.clientRow?.dapp ? 1 : 0))}::int[])
          as i(code_hash, now, client_id, redirect_uri, code_challenge, token_hash, token_expires_at,
               check_client, secret_hash, previous_secret_hash, previous_secret_expires_at, dapp)),
      consumed as (update oauth_codes set used_at = i.now from input i
        where oauth_codes.code_hash = i.code_hash and oauth_codes.used_at is null and oauth_codes.expires_at > i.now
          and oauth_codes.client_id = i.client_id and oauth_codes.redirect_uri = i.redirect_uri
          and oauth_codes.code_challenge is not distinct from i.code_challenge
          and not exists (select 1 from oauth_grants g
                          where g.grant_id = oauth_codes.grant_id and g.revoked_at is not null)
          and ${inputClientRowUnchanged(sql.ref('oauth_codes.client_id'))}
        returning oauth_codes.*, i.token_hash as redeemed_by, i.token_expires_at),
      issued as (insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid, created_at, expires_at)
        select redeemed_by, grant_id, client_id, user_uuid, used_at, token_expires_at from consumed)
      select * from consumed`.execute(this.db);
    const byToken = new Map<string, OAuthCodesTable>();
    for (const { redeemed_by, token_expires_at: _, ...row } of rows as (OAuthCodesTable & {
      redeemed_by: string;
      token_expires_at: unknown;
    })[])
      byToken.set(redeemed_by, row);
    return items.map((item) => byToken.get(item.token.tokenHash));
  }

  /** One redemption in its own commit: the path before group commit, and a batch's fallback. */
  async #redeemAlone({ input, token }: Redemption): Promise<OAuthCodesTable | undefined> {
    if (this.#native && !this.#native.inTransaction) {
      this.#nativeRedeemFn ??= this.#native.transaction(this.#nativeStatements());
      return this.#nativeRedeemFn(input, token);
    }
    const challenge =
      input.codeChallenge === null
        ? sql`code_challenge is null`
        : sql`code_challenge = ${input.codeChallenge}`;
    const clientUnchanged = clientRowUnchanged(input.clientRow, sql.ref('oauth_codes.client_id'));
    const consume = sql`update oauth_codes set used_at = ${input.now}
      where code_hash = ${input.codeHash} and used_at is null and expires_at > ${input.now}
        and client_id = ${input.clientId} and redirect_uri = ${input.redirectUri} and ${challenge}
        and not exists (select 1 from oauth_grants g
                        where g.grant_id = oauth_codes.grant_id and g.revoked_at is not null)
        ${clientUnchanged}
      returning *`;
    const { tokenHash, expiresAt } = token;
    if (this.#postgres) {
      const { rows } = await sql<OAuthCodesTable>`with consumed as (${consume}),
        issued as (insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid, created_at, expires_at)
                   select ${tokenHash}, grant_id, client_id, user_uuid, ${input.now}, ${expiresAt} from consumed)
        select * from consumed`.execute(this.db);
      return rows[0];
    }
    return this.db.transaction().execute(async (trx) => {
      const row = (await consume.execute(trx)).rows[0] as OAuthCodesTable | undefined;
      if (!row) return undefined;
      await sql`insert into oauth_refresh_tokens (token_hash, grant_id, client_id, user_uuid, created_at, expires_at)
        values (${tokenHash}, ${row.grant_id}, ${row.client_id}, ${row.user_uuid}, ${input.now}, ${expiresAt})`.execute(
        trx,
      );
      return row;
    });
  }

  /**
   * `redeemCode`'s two statements on SQLite through better-sqlite3 directly (the conditional UPDATE, `IS`
   * being SQLite's null-safe equality for the PKCE challenge, and the INSERT), to run inside a native
   * transaction — no Kysely compilation, connection mutex or promise per statement
   * (docs/performance-http.md, "Round 3"). Built on first use.
   */
  #nativeStatements(): NativeRedeem {
    if (this.#nativeStatementsFn) return this.#nativeStatementsFn;
    const native = this.#native!;
    const consume = native.prepare<
      Record<string, unknown>,
      OAuthCodesTable
    >(`update oauth_codes set used_at = @now
      where code_hash = @codeHash and used_at is null and expires_at > @now
        and client_id = @clientId and redirect_uri = @redirectUri and code_challenge is @codeChallenge
        and not exists (select 1 from oauth_grants g
                        where g.grant_id = oauth_codes.grant_id and g.revoked_at is not null)
        and (@check = 0 or exists (select 1 from oauth_clients c
              where c.client_id = oauth_codes.client_id and c.deleted_at is null
                and c.secret_hash = @secretHash and c.previous_secret_hash is @previousSecretHash
                and c.previous_secret_expires_at is @previousSecretExpiresAt and c.dapp = @dapp))
      returning *`);
    const issue = native.prepare(`insert into oauth_refresh_tokens
      (token_hash, grant_id, client_id, user_uuid, created_at, expires_at) values (?, ?, ?, ?, ?, ?)`);
    this.#nativeStatementsFn = (input: RedeemInput, token: FirstRefreshToken) => {
      const row = consume.get({
        now: input.now,
        codeHash: input.codeHash,
        clientId: input.clientId,
        redirectUri: input.redirectUri,
        codeChallenge: input.codeChallenge,
        ...clientRowParameters(input.clientRow),
      });
      if (!row) return undefined;
      issue.run(token.tokenHash, row.grant_id, row.client_id, row.user_uuid, input.now, token.expiresAt);
      return row;
    };
    return this.#nativeStatementsFn;
  }

  async findGrant(grantId: string): Promise<GrantRecord | undefined> {
    const row = await this.db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('grant_id', '=', grantId)
      .executeTakeFirst();
    return row ? toGrant(row) : undefined;
  }

  /** Revokes one grant; true when this call revoked it (false: unknown or already revoked). */
  async revokeGrant(grantId: string, reason: string, now: number): Promise<boolean> {
    const outbox = this.outbox;
    if (!outbox) {
      const result = await this.db
        .updateTable('oauth_grants')
        .set({ revoked_at: now, revoked_reason: reason.slice(0, 40) })
        .where('grant_id', '=', grantId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return affected(result) === 1;
    }
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('oauth_grants')
        .set({ revoked_at: now, revoked_reason: reason.slice(0, 40) })
        .where('grant_id', '=', grantId)
        .where('revoked_at', 'is', null)
        .returning(['client_id', 'user_uuid'])
        .executeTakeFirst();
      if (!row) return false;
      await outbox.record(trx, grantRevoked(grantId, row.client_id, Number(row.user_uuid), reason, now));
      return true;
    });
  }

  /** Revokes every live grant of a user for an app; returns the ids it revoked. */
  async revokeGrantsOf(userUuid: number, clientId: string, reason: string, now: number): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('oauth_grants')
        .select('grant_id')
        .where('user_uuid', '=', userUuid)
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .execute();
      if (rows.length === 0) return [];
      const ids = rows.map((r) => r.grant_id);
      await trx
        .updateTable('oauth_grants')
        .set({ revoked_at: now, revoked_reason: reason.slice(0, 40) })
        .where('grant_id', 'in', ids)
        .where('revoked_at', 'is', null)
        .execute();
      for (const id of ids) await this.outbox?.record(trx, grantRevoked(id, clientId, userUuid, reason, now));
      return ids;
    });
  }

  /** Revokes every live grant of a user, every app (password reset or change); returns the ids it revoked. */
  async revokeAllGrantsOfUser(userUuid: number, reason: string, now: number): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('oauth_grants')
        .select('grant_id')
        .where('user_uuid', '=', userUuid)
        .where('revoked_at', 'is', null)
        .execute();
      if (rows.length === 0) return [];
      const ids = rows.map((r) => r.grant_id);
      await trx
        .updateTable('oauth_grants')
        .set({ revoked_at: now, revoked_reason: reason.slice(0, 40) })
        .where('grant_id', 'in', ids)
        .where('revoked_at', 'is', null)
        .execute();
      return ids;
    });
  }

  /** Revokes every live grant of an app (the app was deleted); returns the ids it revoked. */
  async revokeGrantsOfClient(clientId: string, reason: string, now: number): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('oauth_grants')
        .select(['grant_id', 'user_uuid'])
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .execute();
      if (rows.length === 0) return [];
      await trx
        .updateTable('oauth_grants')
        .set({ revoked_at: now, revoked_reason: reason.slice(0, 40) })
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null)
        .execute();
      for (const r of rows) {
        await this.outbox?.record(trx, grantRevoked(r.grant_id, clientId, Number(r.user_uuid), reason, now));
      }
      return rows.map((r) => r.grant_id);
    });
  }

  /** The apps a user approved and still holds a live grant for: the earliest grant and its scopes. */
  async liveGrantsOfUser(userUuid: number): Promise<{ clientId: string; since: number; scopes: string[] }[]> {
    const rows = await this.db
      .selectFrom('oauth_grants')
      .select(['client_id', 'created_at', 'scope'])
      .where('user_uuid', '=', userUuid)
      .where('revoked_at', 'is', null)
      .orderBy('created_at')
      .execute();
    const byClient = new Map<string, { clientId: string; since: number; scopes: Set<string> }>();
    for (const r of rows) {
      const entry = byClient.get(r.client_id) ?? {
        clientId: r.client_id,
        since: Number(r.created_at),
        scopes: new Set<string>(),
      };
      for (const scope of (r.scope ?? '').split(' ')) if (scope) entry.scopes.add(scope);
      byClient.set(r.client_id, entry);
    }
    return [...byClient.values()].map((e) => ({
      clientId: e.clientId,
      since: e.since,
      scopes: [...e.scopes],
    }));
  }

  /** A user's live grants, newest first, with where each was authorized and its last rotation. */
  async liveGrantDetailsOf(userUuid: number): Promise<LiveGrant[]> {
    const rows = await this.db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map((r) => ({
      ...toGrant(r),
      device: { userAgent: r.user_agent ?? undefined, network: r.network ?? undefined },
      lastUsedAt: r.last_used_at === null ? undefined : Number(r.last_used_at),
    }));
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    const row = await this.db
      .selectFrom('oauth_refresh_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row ? toRefresh(row) : undefined;
  }

  /**
   * Rotation: stores the successor and marks the presented token used (recording the successor
   * for the grace window) in one transaction. 'lost' when the token was already used or its
   * grant revoked meanwhile; then nothing changed.
   */
  async rotateRefreshToken(input: {
    oldHash: string;
    now: number;
    successor: RefreshTokenRecord;
    successorSealed: string;
  }): Promise<'rotated' | 'lost'> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx.insertInto('oauth_refresh_tokens').values(refreshRow(input.successor)).execute();
        const used = await trx
          .updateTable('oauth_refresh_tokens')
          .set({
            used_at: input.now,
            successor_hash: input.successor.tokenHash,
            successor_sealed: input.successorSealed,
          })
          .where('token_hash', '=', input.oldHash)
          .where('used_at', 'is', null)
          .where(({ exists, not, selectFrom }) =>
            not(
              exists(
                selectFrom('oauth_grants')
                  .select('oauth_grants.grant_id')
                  .whereRef('oauth_grants.grant_id', '=', 'oauth_refresh_tokens.grant_id')
                  .where('oauth_grants.revoked_at', 'is not', null),
              ),
            ),
          )
          .executeTakeFirst();
        if (affected(used) !== 1) throw new LostRace();
        // The grant's last use, as the account's Security page shows it.
        await trx
          .updateTable('oauth_grants')
          .set({ last_used_at: input.now })
          .where('grant_id', '=', input.successor.grantId)
          .execute();
      });
      return 'rotated';
    } catch (err) {
      if (err instanceof LostRace) return 'lost';
      throw err;
    }
  }

  /** Forgets the sealed successor once the grace window is over (it is never needed again). */
  async clearSuccessor(tokenHash: string): Promise<void> {
    await this.db
      .updateTable('oauth_refresh_tokens')
      .set({ successor_sealed: null })
      .where('token_hash', '=', tokenHash)
      .execute();
  }

  /**
   * Deletes what can no longer matter: codes a day after expiry (kept that long so a late replay
   * still revokes its grant), expired refresh tokens, and grants with nothing left that points to them.
   */
  async purgeExpired(now: number, graceMs: number): Promise<void> {
    await this.db
      .deleteFrom('oauth_codes')
      .where('expires_at', '<', now - 24 * 3600_000)
      .execute();
    await this.db.deleteFrom('oauth_refresh_tokens').where('expires_at', '<', now).execute();
    await this.db
      .updateTable('oauth_refresh_tokens')
      .set({ successor_sealed: null })
      .where('successor_sealed', 'is not', null)
      .where('used_at', '<', now - graceMs)
      .execute();
    // NOT IN (…) is evaluated once into a temporary set on both databases, so no index is needed.
    await sql`delete from oauth_grants where created_at < ${now - 24 * 3600_000}
      and grant_id not in (select grant_id from oauth_refresh_tokens)
      and grant_id not in (select grant_id from oauth_codes)`.execute(this.db);
  }
}

const grantCreated = (
  grant: Pick<GrantRecord, 'grantId' | 'clientId' | 'userUuid' | 'createdAt'> & {
    oidc?: { scope: string } | undefined;
  },
  slotId?: string,
): OutboxEvent => ({
  type: 'grant.created',
  clientId: grant.clientId,
  at: grant.createdAt,
  data: {
    grant_id: grant.grantId,
    user_id: String(grant.userUuid),
    ...(slotId !== undefined ? { slot_id: slotId } : {}),
    ...(grant.oidc ? { scope: grant.oidc.scope } : {}),
  },
});

const grantRevoked = (
  grantId: string,
  clientId: string,
  userUuid: number,
  reason: string,
  at: number,
): OutboxEvent => ({
  type: 'grant.revoked',
  clientId,
  at,
  data: { grant_id: grantId, user_id: String(userUuid), reason: reason.slice(0, 40) },
});
