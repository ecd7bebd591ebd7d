import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';
import { type CodeRecord, type GrantRecord, insertGrantWithCode } from './oauthGrantStore.js';
import type { WebhookOutbox } from './webhookStore.js';

export interface DeviceAuthorizationsTable {
  device_code_hash: string;
  user_code: string;
  client_id: string;
  scope: string | null;
  code_hash: string;
  created_at: number;
  expires_at: number;
  interval_seconds: number;
  last_polled_at: number | null;
  status: DeviceAuthorizationStatus;
  user_uuid: number | null;
  decided_at: number | null;
}

declare module '../db/database.js' {
  interface Database {
    oauth_device_authorizations: DeviceAuthorizationsTable;
  }
}

export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied';

/** One device authorization request (RFC 8628 §3.1), from the device's request to its redemption. */
export interface DeviceAuthorizationRecord {
  /** SHA-256 (hex) of the device code: the code itself is never stored. */
  deviceCodeHash: string;
  /** Normalized: eight letters of the user-code alphabet, without the dash. */
  userCode: string;
  clientId: string;
  /** The requested scope, as sent (undefined: none). */
  scope: string | undefined;
  /** SHA-256 of the authorization code an approval issues (derived from the device code). */
  codeHash: string;
  createdAt: number;
  expiresAt: number;
  intervalSeconds: number;
  lastPolledAt: number | null;
  status: DeviceAuthorizationStatus;
  userUuid: number | null;
  decidedAt: number | null;
}

const toRecord = (r: DeviceAuthorizationsTable): DeviceAuthorizationRecord => ({
  deviceCodeHash: r.device_code_hash,
  userCode: r.user_code,
  clientId: r.client_id,
  scope: r.scope ?? undefined,
  codeHash: r.code_hash,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
  intervalSeconds: Number(r.interval_seconds),
  lastPolledAt: r.last_polled_at === null ? null : Number(r.last_polled_at),
  status: r.status,
  userUuid: r.user_uuid === null ? null : Number(r.user_uuid),
  decidedAt: r.decided_at === null ? null : Number(r.decided_at),
});

/**
 * Device authorization requests. Every transition is one conditional UPDATE checked by its
 * affected-row count: a decision only moves a pending, unexpired request (so two approvals, or an
 * approval racing a denial, settle on exactly one), and a poll's on-time check and its record are
 * the same statement.
 */
export class DeviceAuthorizationStore {
  /** `outbox`: an approval's grant writes `grant.created` in the approval's commit. */
  constructor(
    private readonly db: Db,
    private readonly outbox?: WebhookOutbox,
  ) {}

  /** Inserts a new request; false when its user code is taken by a stored one (the caller draws another). */
  async insert(record: DeviceAuthorizationRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('oauth_device_authorizations')
      .values({
        device_code_hash: record.deviceCodeHash,
        user_code: record.userCode,
        client_id: record.clientId,
        scope: record.scope ?? null,
        code_hash: record.codeHash,
        created_at: record.createdAt,
        expires_at: record.expiresAt,
        interval_seconds: record.intervalSeconds,
        last_polled_at: null,
        status: record.status,
        user_uuid: null,
        decided_at: null,
      })
      .onConflict((oc) => oc.column('user_code').doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async findByDeviceCode(deviceCodeHash: string): Promise<DeviceAuthorizationRecord | undefined> {
    const row = await this.db
      .selectFrom('oauth_device_authorizations')
      .selectAll()
      .where('device_code_hash', '=', deviceCodeHash)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /** The pending, unexpired request with this (normalized) user code. */
  async findPending(userCode: string, now: number): Promise<DeviceAuthorizationRecord | undefined> {
    const row = await this.db
      .selectFrom('oauth_device_authorizations')
      .selectAll()
      .where('user_code', '=', userCode)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /**
   * Approves a pending, unexpired request for `userUuid` and opens its grant with its authorization
   * code, in one commit; false (nothing written) when the request was no longer pending or expired.
   */
  async approve(deviceCodeHash: string, now: number, grant: GrantRecord, code: CodeRecord): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('oauth_device_authorizations')
        .set({ status: 'approved', user_uuid: grant.userUuid, decided_at: now })
        .where('device_code_hash', '=', deviceCodeHash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (affected(result) !== 1) return false;
      await insertGrantWithCode(trx, grant, code, this.outbox);
      return true;
    });
  }

  /** Denies a pending, unexpired request; false when it was no longer pending or expired. */
  async deny(deviceCodeHash: string, userUuid: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_device_authorizations')
      .set({ status: 'denied', user_uuid: userUuid, decided_at: now })
      .where('device_code_hash', '=', deviceCodeHash)
      .where('status', '=', 'pending')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /**
   * Records a poll of a pending request. On time (its interval has passed since the last poll): true.
   * Too early: the interval grows by `slowDownSeconds` for every later poll (RFC 8628 §3.5) and false.
   * Either way the poll's time is recorded, so the device waits a whole interval from this poll.
   */
  async recordPoll(deviceCodeHash: string, now: number, slowDownSeconds: number): Promise<boolean> {
    const onTime = await this.db
      .updateTable('oauth_device_authorizations')
      .set({ last_polled_at: now })
      .where('device_code_hash', '=', deviceCodeHash)
      .where((eb) =>
        eb.or([
          eb('last_polled_at', 'is', null),
          eb(eb('last_polled_at', '+', eb('interval_seconds', '*', 1000)), '<=', now),
        ]),
      )
      .executeTakeFirst();
    if (affected(onTime) === 1) return true;
    await this.db
      .updateTable('oauth_device_authorizations')
      .set((eb) => ({ last_polled_at: now, interval_seconds: eb('interval_seconds', '+', slowDownSeconds) }))
      .where('device_code_hash', '=', deviceCodeHash)
      .execute();
    return false;
  }

  /** Deletes requests a day past their expiry (an approved one's code is purged on the same schedule). */
  async purgeExpired(now: number): Promise<void> {
    await this.db
      .deleteFrom('oauth_device_authorizations')
      .where('expires_at', '<', now - 24 * 3600_000)
      .execute();
  }
}
