import type { Db } from '../db/database.js';
import { prepareQuery } from '../db/preparedQuery.js';
import type { Address } from './walletStore.js';
import { affected } from './kyselyResults.js';

export interface WalletCustodyTable {
  user_uuid: number;
  wallet_address: string;
  owner: string;
  server_share_sealed: string;
  mnemonic_sealed: string;
  key_version: number;
  failed_attempts: number;
  lock_count: number;
  locked_until: number;
  user_share_check: string | null;
  owner_key_check: string | null;
  created_at: number;
  updated_at: number;
}

export interface PendingRotationsTable {
  user_uuid: number;
  old_owner: string;
  new_owner: string;
  server_share_sealed: string;
  mnemonic_sealed: string;
  lease_id: string;
  lease_until: number;
  created_at: number;
}

declare module '../db/database.js' {
  interface Database {
    wallet_custody: WalletCustodyTable;
    pending_rotations: PendingRotationsTable;
  }
}

/** A user's custody record: sealed key material of the current owner plus the PIN lockout state. */
export interface Custody {
  userUuid: number;
  /** The main wallet (W_SALT = 0). */
  walletAddress: Address;
  /** The owner EOA the sealed material belongs to. */
  owner: Address;
  serverShareSealed: string;
  mnemonicSealed: string;
  keyVersion: number;
  failedAttempts: number;
  lockCount: number;
  lockedUntil: number;
  /** Keyed fingerprint of the current `share_user` (custody/shareCheck.ts); undefined for older rows. */
  userShareCheck: string | undefined;
  /** Keyed fingerprint of the owner key (custody/ownerKeyCheck.ts); undefined for older rows and after a rotation. */
  ownerKeyCheck?: string | undefined;
  createdAt: number;
  updatedAt: number;
}

/** A rotation whose chain operations may have been sent but whose new owner is not yet stored. */
export interface PendingRotation {
  userUuid: number;
  oldOwner: Address;
  newOwner: Address;
  serverShareSealed: string;
  mnemonicSealed: string;
  leaseId: string;
  leaseUntil: number;
  createdAt: number;
}

const toCustody = (r: WalletCustodyTable): Custody => ({
  userUuid: Number(r.user_uuid),
  walletAddress: r.wallet_address as Address,
  owner: r.owner as Address,
  serverShareSealed: r.server_share_sealed,
  mnemonicSealed: r.mnemonic_sealed,
  keyVersion: Number(r.key_version),
  failedAttempts: Number(r.failed_attempts),
  lockCount: Number(r.lock_count),
  lockedUntil: Number(r.locked_until),
  userShareCheck: r.user_share_check ?? undefined,
  ownerKeyCheck: r.owner_key_check ?? undefined,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const toPending = (r: PendingRotationsTable): PendingRotation => ({
  userUuid: Number(r.user_uuid),
  oldOwner: r.old_owner as Address,
  newOwner: r.new_owner as Address,
  serverShareSealed: r.server_share_sealed,
  mnemonicSealed: r.mnemonic_sealed,
  leaseId: r.lease_id,
  leaseUntil: Number(r.lease_until),
  createdAt: Number(r.created_at),
});

/**
 * Custody rows and pending rotations. Every state change that can race (PIN attempts, share
 * replacement, rotation) is a conditional UPDATE whose affected-row count decides the winner, which
 * behaves the same on SQLite and PostgreSQL. Methods take an optional transaction.
 */
export class CustodyStore {
  // Every PIN verification runs these three, prepared once (`prepareQuery`): on SQLite a cached statement
  // run synchronously, no query built or compiled per call (docs/performance-pin.md, round 7).
  readonly #withPendingFlag;
  readonly #reserve;
  readonly #clear;

  constructor(private readonly db: Db) {
    // The flag as an EXISTS subquery, not a LEFT JOIN: on SQLite the join cost 27–30 µs a run against 3–5 µs
    // for the same answer (both on the primary keys; docs/performance-pin.md, round 8).
    this.#withPendingFlag = prepareQuery(db, (d, userUuid: number) =>
      d
        .selectFrom('wallet_custody')
        .selectAll('wallet_custody')
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom('pending_rotations')
                .select('pending_rotations.user_uuid')
                .whereRef('pending_rotations.user_uuid', '=', 'wallet_custody.user_uuid'),
            )
            .as('rotation_pending'),
        )
        .where('wallet_custody.user_uuid', '=', userUuid),
    );
    this.#reserve = prepareQuery(db, (d, userUuid: number, now: number, maxAttempts: number) =>
      d
        .updateTable('wallet_custody')
        .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
        .where('user_uuid', '=', userUuid)
        .where('locked_until', '<=', now)
        .where('failed_attempts', '<', maxAttempts),
    );
    this.#clear = prepareQuery(db, (d, userUuid: number, now: number) =>
      d
        .updateTable('wallet_custody')
        .set({ failed_attempts: 0, lock_count: 0, locked_until: 0, updated_at: now })
        .where('user_uuid', '=', userUuid),
    );
  }

  /** Runs `fn` in one database transaction. */
  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** Inserts a custody row; false when the user already has one. */
  async insert(custody: Custody, trx: Db = this.db): Promise<boolean> {
    const result = await trx
      .insertInto('wallet_custody')
      .values({
        user_uuid: custody.userUuid,
        wallet_address: custody.walletAddress,
        owner: custody.owner,
        server_share_sealed: custody.serverShareSealed,
        mnemonic_sealed: custody.mnemonicSealed,
        key_version: custody.keyVersion,
        failed_attempts: custody.failedAttempts,
        lock_count: custody.lockCount,
        locked_until: custody.lockedUntil,
        user_share_check: custody.userShareCheck ?? null,
        owner_key_check: custody.ownerKeyCheck ?? null,
        created_at: custody.createdAt,
        updated_at: custody.updatedAt,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async find(userUuid: number, trx: Db = this.db): Promise<Custody | undefined> {
    const row = await trx
      .selectFrom('wallet_custody')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row ? toCustody(row) : undefined;
  }

  /**
   * The custody row and whether a rotation is pending for the user, in one statement (a PIN
   * verification's first read: `OwnerRotation.reconcile` needs the second, the PIN check the first).
   */
  async findWithPendingFlag(
    userUuid: number,
  ): Promise<{ custody: Custody; rotationPending: boolean } | undefined> {
    const [row] = (await this.#withPendingFlag.run(userUuid)).rows;
    if (!row) return undefined;
    const { rotation_pending: pending, ...custody } = row;
    // SQLite answers EXISTS with 1 or 0, PostgreSQL with a boolean.
    return { custody: toCustody(custody), rotationPending: Number(pending) === 1 };
  }

  /**
   * Reserves one PIN attempt before the PIN is checked, so concurrent guesses cannot all pass a
   * "not locked yet" check: true when the wallet is not locked and fewer than `maxAttempts`
   * wrong-or-pending attempts are counted.
   */
  async reserveAttempt(userUuid: number, now: number, maxAttempts: number): Promise<boolean> {
    return (await this.#reserve.run(userUuid, now, maxAttempts)).affected === 1;
  }

  /**
   * After a wrong PIN: when `maxAttempts` are counted, locks the wallet until `now + lockMs(n)` for
   * the n-th lock in a row and clears the count. Returns the lock end, or undefined when not locked.
   */
  async lockIfExhausted(
    userUuid: number,
    now: number,
    maxAttempts: number,
    lockMs: (lockNumber: number) => number,
  ): Promise<number | undefined> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await this.find(userUuid);
      if (!current) return undefined;
      if (current.lockedUntil > now) return current.lockedUntil;
      if (current.failedAttempts < maxAttempts) return undefined;
      const until = now + lockMs(current.lockCount + 1);
      const result = await this.db
        .updateTable('wallet_custody')
        .set({ locked_until: until, lock_count: current.lockCount + 1, failed_attempts: 0, updated_at: now })
        .where('user_uuid', '=', userUuid)
        .where('lock_count', '=', current.lockCount)
        .where('failed_attempts', '>=', maxAttempts)
        .where('locked_until', '<=', now)
        .executeTakeFirst();
      if (affected(result) === 1) return until;
    }
    return (await this.find(userUuid))?.lockedUntil;
  }

  /** A correct PIN (or a proven mnemonic) ends the run of wrong PINs and the lock doubling. */
  async clearFailures(userUuid: number, now: number): Promise<void> {
    await this.#clear.run(userUuid, now);
  }

  /**
   * Replaces the server share if the key version is still `expectedVersion` (PIN reset). Also clears
   * the lockout: knowing the mnemonic proves ownership. False when another change won the race.
   */
  async replaceServerShare(
    userUuid: number,
    expectedVersion: number,
    serverShareSealed: string,
    userShareCheck: string,
    now: number,
    trx: Db = this.db,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('wallet_custody')
      .set({
        server_share_sealed: serverShareSealed,
        user_share_check: userShareCheck,
        key_version: expectedVersion + 1,
        failed_attempts: 0,
        lock_count: 0,
        locked_until: 0,
        updated_at: now,
      })
      .where('user_uuid', '=', userUuid)
      .where('key_version', '=', expectedVersion)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Stores a rotated owner's key material if the row still holds `oldOwner` at `expectedVersion`. */
  async replaceOwner(
    input: {
      userUuid: number;
      oldOwner: Address;
      expectedVersion: number;
      newOwner: Address;
      serverShareSealed: string;
      mnemonicSealed: string;
      /** Undefined when the rotation is completed by a later request (its new share was never handed out). */
      userShareCheck: string | undefined;
      now: number;
    },
    trx: Db = this.db,
  ): Promise<boolean> {
    const result = await trx
      .updateTable('wallet_custody')
      .set({
        owner: input.newOwner,
        server_share_sealed: input.serverShareSealed,
        user_share_check: input.userShareCheck ?? null,
        // The new owner's key fingerprint is filled in by its first correct PIN.
        owner_key_check: null,
        mnemonic_sealed: input.mnemonicSealed,
        key_version: input.expectedVersion + 1,
        failed_attempts: 0,
        lock_count: 0,
        locked_until: 0,
        updated_at: input.now,
      })
      .where('user_uuid', '=', input.userUuid)
      .where('owner', '=', input.oldOwner)
      .where('key_version', '=', input.expectedVersion)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Fills in the share fingerprint of a row written before it existed, if the key has not changed since. */
  async setShareCheck(userUuid: number, keyVersion: number, userShareCheck: string): Promise<void> {
    await this.db
      .updateTable('wallet_custody')
      .set({ user_share_check: userShareCheck })
      .where('user_uuid', '=', userUuid)
      .where('key_version', '=', keyVersion)
      .where('user_share_check', 'is', null)
      .execute();
  }

  /**
   * Fills in the owner-key fingerprint once a correct PIN proved the key yields `owner`, if the row
   * still holds that owner (a rotation meanwhile stores a new owner and clears it).
   */
  async setOwnerKeyCheck(userUuid: number, owner: Address, ownerKeyCheck: string): Promise<void> {
    await this.db
      .updateTable('wallet_custody')
      .set({ owner_key_check: ownerKeyCheck })
      .where('user_uuid', '=', userUuid)
      .where('owner', '=', owner)
      .execute();
  }

  /** Records a rotation before its first chain operation; false when one is already pending. */
  async insertPending(pending: PendingRotation, trx: Db = this.db): Promise<boolean> {
    const result = await trx
      .insertInto('pending_rotations')
      .values({
        user_uuid: pending.userUuid,
        old_owner: pending.oldOwner,
        new_owner: pending.newOwner,
        server_share_sealed: pending.serverShareSealed,
        mnemonic_sealed: pending.mnemonicSealed,
        lease_id: pending.leaseId,
        lease_until: pending.leaseUntil,
        created_at: pending.createdAt,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async findPending(userUuid: number, trx: Db = this.db): Promise<PendingRotation | undefined> {
    const row = await trx
      .selectFrom('pending_rotations')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row ? toPending(row) : undefined;
  }

  /** Takes over a pending rotation whose lease has expired; false when someone else holds it. */
  async takeLease(userUuid: number, leaseId: string, leaseUntil: number, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('pending_rotations')
      .set({ lease_id: leaseId, lease_until: leaseUntil })
      .where('user_uuid', '=', userUuid)
      .where('lease_until', '<=', now)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Extends the lease we hold; false when it was taken over (it had expired). */
  async renewLease(userUuid: number, leaseId: string, leaseUntil: number): Promise<boolean> {
    const result = await this.db
      .updateTable('pending_rotations')
      .set({ lease_until: leaseUntil })
      .where('user_uuid', '=', userUuid)
      .where('lease_id', '=', leaseId)
      .executeTakeFirst();
    return affected(result) === 1;
  }

  /** Lets the next use of the wallet resume the rotation at once (after a failure of ours). */
  async releaseLease(userUuid: number, leaseId: string): Promise<void> {
    await this.db
      .updateTable('pending_rotations')
      .set({ lease_until: 0 })
      .where('user_uuid', '=', userUuid)
      .where('lease_id', '=', leaseId)
      .execute();
  }

  /** Removes the pending rotation we hold (in the transaction that stores the new owner). */
  async deletePending(userUuid: number, leaseId: string, trx: Db = this.db): Promise<boolean> {
    const result = await trx
      .deleteFrom('pending_rotations')
      .where('user_uuid', '=', userUuid)
      .where('lease_id', '=', leaseId)
      .executeTakeFirst();
    return affected(result) === 1;
  }
}
