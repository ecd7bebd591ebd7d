import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { prepareQuery } from '../db/preparedQuery.js';
import { affected } from './kyselyResults.js';

export interface AccountSecurityLinksTable {
  token_hash: string;
  user_uuid: number;
  change: string;
  subject: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface AccountResetHoldsTable {
  user_uuid: number;
  reason: string;
  created_at: number;
}

export interface AccountCutoffsTable {
  user_uuid: number;
  reason: string;
  created_at: number;
}

declare module '../db/database.js' {
  interface Database {
    account_security_links: AccountSecurityLinksTable;
    account_reset_holds: AccountResetHoldsTable;
    account_cutoffs: AccountCutoffsTable;
  }
}

/** The ways in a mailbox proof removed (for the mail that says so). */
export interface RemovedWaysIn {
  passkeys: { id: string; createdAt: number }[];
  identities: { id: string; provider: string; displayName: string | null; createdAt: number }[];
  guestSecret: boolean;
  /** A TOTP authenticator (confirmed or pending) and its recovery codes. */
  totp: boolean;
}

export interface SecurityLinkRecord {
  userUuid: number;
  change: string;
  subject: string | undefined;
  createdAt: number;
  expiresAt: number;
}

/** When every login JWT of the account stops: `cutoff` (Unix s), sparing `keptJti` if given. */
interface Cutoff {
  now: number;
  cutoff: number;
  keptJti: string | null;
  reason: string;
}

/**
 * Account security (docs/security.md): what a mailbox proof purges, the "this wasn't me" links, and the
 * password-reset hold. Each change that both removes ways in and ends sessions is one transaction over the
 * rows it touches (ways in, `users` login cut-off, login-page sessions, session keys marked for revocation,
 * and an `account_cutoffs` row naming the app-grant revocation still to run after commit), so a crash can
 * never leave an attacker's way in alive with its sessions, or the reverse.
 */
export class AccountSecurityStore {
  readonly #postgres: boolean;
  /** Asked by every sign-in (a sign-in gate): prepared once. */
  readonly #resetHoldOf;

  constructor(private readonly db: Db) {
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    this.#resetHoldOf = prepareQuery(db, (d, userUuid: number) =>
      d.selectFrom('account_reset_holds').select('user_uuid').where('user_uuid', '=', userUuid),
    );
  }

  /**
   * A password reset or an address verification proved the mailbox: the address is marked verified and,
   * when that is the first proof (it was never verified), every way in added before it is removed and every
   * session ends (docs/accounts.md). A reset's new password hash is stored in the same transaction (and
   * lifts a password-reset hold). Answers whether it was the first proof and what it removed.
   */
  async proveMailbox(
    userUuid: number,
    proof: Cutoff & { passwordHash?: string | undefined },
  ): Promise<{ firstProof: boolean; removed: RemovedWaysIn }> {
    const removed: RemovedWaysIn = { passkeys: [], identities: [], guestSecret: false, totp: false };
    return this.db.transaction().execute(async (trx) => {
      await this.#lockUser(trx, userUuid);
      if (proof.passwordHash !== undefined) {
        await trx
          .updateTable('users')
          .set({
            password_hash: proof.passwordHash,
            logins_valid_after: proof.cutoff,
            logins_kept_jti: proof.keptJti,
          })
          .where('user_uuid', '=', userUuid)
          .execute();
        await trx.deleteFrom('account_reset_holds').where('user_uuid', '=', userUuid).execute();
      }
      const marked = await trx
        .updateTable('users')
        .set({ email_verified_at: proof.now })
        .where('user_uuid', '=', userUuid)
        .where('email_verified_at', 'is', null)
        .where('email', 'is not', null)
        .executeTakeFirst();
      if (affected(marked) !== 1) return { firstProof: false, removed };

      const passkeys = await trx
        .deleteFrom('passkeys')
        .where('user_uuid', '=', userUuid)
        .returning(['id', 'created_at'])
        .execute();
      removed.passkeys = passkeys.map((p) => ({ id: p.id, createdAt: Number(p.created_at) }));
      const identities = await trx
        .deleteFrom('federated_identities')
        .where('user_uuid', '=', userUuid)
        .returning(['id', 'provider', 'display_name', 'created_at'])
        .execute();
      removed.identities = identities.map((i) => ({
        id: i.id,
        provider: i.provider,
        displayName: i.display_name,
        createdAt: Number(i.created_at),
      }));
      const guest = await trx
        .deleteFrom('guest_accounts')
        .where('user_uuid', '=', userUuid)
        .executeTakeFirst();
      removed.guestSecret = affected(guest) === 1;
      // A second factor someone else enrolled would keep them one step from the account: it goes too.
      await trx.deleteFrom('mfa_recovery_codes').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('mfa_login_tokens').where('user_uuid', '=', userUuid).execute();
      const totp = await trx.deleteFrom('mfa_totp').where('user_uuid', '=', userUuid).executeTakeFirst();
      removed.totp = affected(totp) === 1;
      await this.#endSessions(trx, userUuid, proof);
      return { firstProof: true, removed };
    });
  }

  /** Stores a security mail's link (its HMAC); the token itself is only in the mail. */
  async insertLink(tokenHash: string, record: SecurityLinkRecord): Promise<void> {
    await this.db.deleteFrom('account_security_links').where('expires_at', '<', record.createdAt).execute();
    await this.db
      .insertInto('account_security_links')
      .values({
        token_hash: tokenHash,
        user_uuid: record.userUuid,
        change: record.change,
        subject: record.subject ?? null,
        created_at: record.createdAt,
        expires_at: record.expiresAt,
        used_at: null,
      })
      .execute();
  }

  /** A link that still works (unused, unexpired), or undefined. Reads only: the confirm page's GET. */
  async liveLink(tokenHash: string, now: number): Promise<SecurityLinkRecord | undefined> {
    const row = await this.db
      .selectFrom('account_security_links')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return row && toLink(row);
  }

  /**
   * "This wasn't me", confirmed: the link is taken once (a conditional update) and, in the same
   * transaction, every session of its account ends, the reported way in is removed (`undo`), and the
   * account must reset its password before any sign-in. Undefined (nothing changed) when the link is
   * unknown, used or expired.
   */
  async confirmLink(
    tokenHash: string,
    cutoff: Cutoff,
    undo: (link: SecurityLinkRecord) => {
      passkeyId?: string;
      identityId?: string;
      provider?: string;
      totp?: boolean;
    },
  ): Promise<SecurityLinkRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('account_security_links')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!row) return undefined;
      const taken = await trx
        .updateTable('account_security_links')
        .set({ used_at: cutoff.now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', cutoff.now)
        .executeTakeFirst();
      if (affected(taken) !== 1) return undefined;
      const link = toLink(row);
      await this.#lockUser(trx, link.userUuid);
      const target = undo(link);
      if (target.passkeyId !== undefined) {
        await trx
          .deleteFrom('passkeys')
          .where('id', '=', target.passkeyId)
          .where('user_uuid', '=', link.userUuid)
          .execute();
      }
      if (target.identityId !== undefined || target.provider !== undefined) {
        let q = trx.deleteFrom('federated_identities').where('user_uuid', '=', link.userUuid);
        q =
          target.identityId !== undefined
            ? q.where('id', '=', target.identityId)
            : q.where('provider', '=', target.provider!).where('created_at', '>=', link.createdAt - 60_000);
        await q.execute();
      }
      if (target.totp) {
        await trx.deleteFrom('mfa_recovery_codes').where('user_uuid', '=', link.userUuid).execute();
        await trx.deleteFrom('mfa_login_tokens').where('user_uuid', '=', link.userUuid).execute();
        await trx.deleteFrom('mfa_totp').where('user_uuid', '=', link.userUuid).execute();
      }
      await trx
        .insertInto('account_reset_holds')
        .values({ user_uuid: link.userUuid, reason: cutoff.reason, created_at: cutoff.now })
        .onConflict((oc) => oc.column('user_uuid').doNothing())
        .execute();
      await this.#endSessions(trx, link.userUuid, cutoff);
      return link;
    });
  }

  /** True while the account must reset its password by e-mail before signing in. */
  async resetRequired(userUuid: number): Promise<boolean> {
    return (await this.#resetHoldOf.run(userUuid)).rows.length > 0;
  }

  /** Cut-offs whose app-grant revocation has not been confirmed (a crash after their transaction). */
  async pendingCutoffs(): Promise<{ userUuid: number; reason: string; createdAt: number }[]> {
    const rows = await this.db.selectFrom('account_cutoffs').selectAll().limit(500).execute();
    return rows.map((r) => ({
      userUuid: Number(r.user_uuid),
      reason: r.reason,
      createdAt: Number(r.created_at),
    }));
  }

  /** The cut-off of `createdAt` is finished (a newer one of the same account stays). */
  async finishCutoff(userUuid: number, createdAt: number): Promise<void> {
    await this.db
      .deleteFrom('account_cutoffs')
      .where('user_uuid', '=', userUuid)
      .where('created_at', '<=', createdAt)
      .execute();
  }

  /**
   * Every login JWT issued before the cut-off (but `keptJti`) is void, the login page's sessions end, pending
   * backend codes, federation tickets and identity links die, the session keys are marked for the background
   * revocation (off chain they stop at once), and the app grants' revocation is recorded as still to do.
   */
  async #endSessions(trx: Transaction<Database>, userUuid: number, c: Cutoff): Promise<void> {
    await trx
      .updateTable('users')
      .set({ logins_valid_after: c.cutoff, logins_kept_jti: c.keptJti })
      .where('user_uuid', '=', userUuid)
      .execute();
    await trx.deleteFrom('oauth_sessions').where('user_uuid', '=', userUuid).execute();
    // Whatever was minted before the cut-off and would still open a way after it: a backend code (a relayed JWT
    // exchanged for a refresh token), a link or console login ticket, an identity link under way. As erase does.
    await trx
      .updateTable('backend_codes')
      .set({ used_at: c.now })
      .where('user_uuid', '=', userUuid)
      .where('used_at', 'is', null)
      .execute();
    await trx.deleteFrom('federation_tickets').where('user_uuid', '=', userUuid).execute();
    await trx.deleteFrom('federation_flows').where('link_user_uuid', '=', userUuid).execute();
    await trx
      .updateTable('session_keys')
      .set({ state: 'revoking', revoke_reason: c.reason.slice(0, 40) })
      .where('user_uuid', '=', userUuid)
      .where('state', '=', 'active')
      .execute();
    await trx.deleteFrom('account_cutoffs').where('user_uuid', '=', userUuid).execute();
    await trx
      .insertInto('account_cutoffs')
      .values({ user_uuid: userUuid, reason: c.reason.slice(0, 40), created_at: c.now })
      .execute();
  }

  async #lockUser(trx: Transaction<Database>, userUuid: number): Promise<void> {
    if (this.#postgres) {
      await sql`select user_uuid from users where user_uuid = ${userUuid} for update`.execute(trx);
    } else {
      // Takes SQLite's write lock now, so the reads below see what the writes will act on.
      await trx.updateTable('users').set({ user_uuid: userUuid }).where('user_uuid', '=', userUuid).execute();
    }
  }
}

const toLink = (row: AccountSecurityLinksTable): SecurityLinkRecord => ({
  userUuid: Number(row.user_uuid),
  change: row.change,
  subject: row.subject ?? undefined,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
});
