import type { Db } from '../db/database.js';
import { affected } from './kyselyResults.js';
import { type IdentityRecord, identityRow } from './federationStore.js';
import { type PasskeyRecord, passkeyRow } from './passkeyStore.js';
import { isUniqueViolation } from './slotStore.js';

export interface GuestAccountsTable {
  user_uuid: number;
  secret_hash: string;
  client_id: string;
  created_at: number;
}

declare module '../db/database.js' {
  interface Database {
    guest_accounts: GuestAccountsTable;
  }
}

export interface GuestRecord {
  userUuid: number;
  secretHash: string;
  clientId: string;
  createdAt: number;
}

/**
 * What the upgrade gives the account: an e-mail and password, its first passkey, or a linked upstream
 * identity (docs/federation.md) with the upstream e-mail when it was verified and is free.
 */
export type GuestUpgrade =
  | { kind: 'password'; email: string; passwordHash: string; nickname: string }
  | { kind: 'passkey'; passkey: PasskeyRecord }
  | { kind: 'identity'; identity: IdentityRecord; email: string | null; now: number };

/**
 * Guest accounts (docs/players.md): a `users` row without e-mail or password plus its `guest_accounts`
 * row (the secret's keyed hash). The upgrade deletes that row in the transaction that gives the account
 * its e-mail or passkey, so the secret is dead exactly when the account has another way in.
 */
export class GuestStore {
  constructor(private readonly db: Db) {}

  /**
   * Creates the user and its guest row together; false when the random id is already taken. `locale` is the
   * account's language (a tag of SUPPORTED_LOCALES), null when unknown.
   */
  async create(guest: GuestRecord, nickname: string, locale: string | null = null): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            user_uuid: guest.userUuid,
            email: null,
            password_hash: '',
            nickname,
            created_at: guest.createdAt,
            locale,
          })
          .execute();
        await trx
          .insertInto('guest_accounts')
          .values({
            user_uuid: guest.userUuid,
            secret_hash: guest.secretHash,
            client_id: guest.clientId,
            created_at: guest.createdAt,
          })
          .execute();
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async find(userUuid: number): Promise<GuestRecord | undefined> {
    const row = await this.db
      .selectFrom('guest_accounts')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return (
      row && {
        userUuid: Number(row.user_uuid),
        secretHash: row.secret_hash,
        clientId: row.client_id,
        createdAt: Number(row.created_at),
      }
    );
  }

  /**
   * Turns the guest into a full account: 'upgraded', 'not_guest' (no guest row: already upgraded, or
   * never a guest), 'email_taken' (another account has the e-mail) or, for an identity, 'identity_taken'
   * (the identity, or the e-mail, was taken meanwhile). Nothing changes unless 'upgraded'.
   */
  async upgrade(
    userUuid: number,
    change: GuestUpgrade,
  ): Promise<'upgraded' | 'not_guest' | 'email_taken' | 'identity_taken'> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const deleted = await trx
          .deleteFrom('guest_accounts')
          .where('user_uuid', '=', userUuid)
          .executeTakeFirst();
        if (affected(deleted) !== 1) return 'not_guest';
        if (change.kind === 'password') {
          await trx
            .updateTable('users')
            .set({ email: change.email, password_hash: change.passwordHash, nickname: change.nickname })
            .where('user_uuid', '=', userUuid)
            .execute();
        } else if (change.kind === 'passkey') {
          await trx.insertInto('passkeys').values(passkeyRow(change.passkey)).execute();
        } else {
          await trx.insertInto('federated_identities').values(identityRow(change.identity)).execute();
          if (change.email !== null) {
            await trx
              .updateTable('users')
              .set({ email: change.email, email_verified_at: change.now })
              .where('user_uuid', '=', userUuid)
              .execute();
          }
        }
        return 'upgraded';
      });
    } catch (err) {
      if (change.kind === 'password' && isUniqueViolation(err)) return 'email_taken';
      if (change.kind === 'identity' && isUniqueViolation(err)) return 'identity_taken';
      throw err;
    }
  }
}
