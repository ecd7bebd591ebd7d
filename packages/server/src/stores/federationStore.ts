import { PostgresAdapter, sql, type Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { affected } from './kyselyResults.js';
import { isUniqueViolation } from './slotStore.js';

export interface FederatedIdentitiesTable {
  id: string;
  provider: string;
  subject: string;
  user_uuid: number;
  email: string | null;
  /** 1 when the upstream said the e-mail is verified, else 0. */
  email_verified: number;
  display_name: string | null;
  created_at: number;
  last_used_at: number | null;
}

export interface FederationFlowsTable {
  state_hash: string;
  provider: string;
  purpose: string;
  link_user_uuid: number | null;
  return_to: string;
  browser_hash: string;
  nonce: string;
  code_verifier_sealed: string;
  created_at: number;
  expires_at: number;
}

export interface FederationTicketsTable {
  ticket_hash: string;
  purpose: string;
  user_uuid: number;
  provider: string | null;
  created: number;
  expires_at: number;
  /** A link ticket: SHA-256 of the browser binder cookie (migration 0222). */
  binder_hash: string | null;
  /** A console login ticket: when the person last proved a credential, Unix seconds (migration 0222). */
  auth_time: number | null;
}

declare module '../db/database.js' {
  interface Database {
    federated_identities: FederatedIdentitiesTable;
    federation_flows: FederationFlowsTable;
    federation_tickets: FederationTicketsTable;
  }
}

/** An upstream account linked to a dauth user: (provider, subject) is unique across the service. */
export interface IdentityRecord {
  id: string;
  provider: string;
  subject: string;
  userUuid: number;
  email: string | null;
  emailVerified: boolean;
  displayName: string | null;
  createdAt: number;
  lastUsedAt: number | undefined;
}

/** `reauthenticate`: a sign-in that must authenticate at the upstream again (the console's step-up). */
export type FlowPurpose = 'sign_in' | 'reauthenticate' | 'link';

/** A browser flow between `start` and `callback` (migration 0170). */
export interface FlowRecord {
  stateHash: string;
  provider: string;
  purpose: FlowPurpose;
  linkUserUuid: number | undefined;
  returnTo: string;
  browserHash: string;
  nonce: string;
  codeVerifierSealed: string;
  createdAt: number;
  expiresAt: number;
}

export type TicketPurpose = 'console_login' | 'link';

export interface TicketRecord {
  ticketHash: string;
  purpose: TicketPurpose;
  userUuid: number;
  provider: string | undefined;
  /** For a console login ticket: the account was created by this sign-in. */
  created: boolean;
  expiresAt: number;
  /** For a link ticket: SHA-256 of the binder cookie of the browser that asked for it. */
  binderHash?: string | undefined;
  /** For a console login ticket: the login JWT's `auth_time` (Unix seconds). */
  authTime?: number | undefined;
}

/** A new account made by a first federated sign-in (no password: `password_hash` ''). */
export interface FederatedAccount {
  userUuid: number;
  email: string | null;
  nickname: string;
  createdAt: number;
  /** The language it signed up in (a tag of SUPPORTED_LOCALES); unknown when absent. */
  locale?: string | undefined;
}

export const identityRow = (i: IdentityRecord): FederatedIdentitiesTable => ({
  id: i.id,
  provider: i.provider,
  subject: i.subject,
  user_uuid: i.userUuid,
  email: i.email,
  email_verified: i.emailVerified ? 1 : 0,
  display_name: i.displayName,
  created_at: i.createdAt,
  last_used_at: i.lastUsedAt ?? null,
});

const toIdentity = (r: FederatedIdentitiesTable): IdentityRecord => ({
  id: r.id,
  provider: r.provider,
  subject: r.subject,
  userUuid: Number(r.user_uuid),
  email: r.email,
  emailVerified: Number(r.email_verified) === 1,
  displayName: r.display_name,
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? undefined : Number(r.last_used_at),
});

/**
 * Federated identities, browser flows and one-time tickets (docs/federation.md, "Accounts and
 * linking"). Every single-use value (a flow's state, a ticket) is taken by a conditional delete whose
 * affected-row count says who won, the same on SQLite and PostgreSQL.
 */
export class FederationStore {
  readonly #postgres: boolean;

  constructor(private readonly db: Db) {
    this.#postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  async findIdentity(provider: string, subject: string): Promise<IdentityRecord | undefined> {
    const row = await this.db
      .selectFrom('federated_identities')
      .selectAll()
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return row && toIdentity(row);
  }

  async listIdentities(userUuid: number): Promise<IdentityRecord[]> {
    const rows = await this.db
      .selectFrom('federated_identities')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toIdentity);
  }

  async hasIdentity(userUuid: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('federated_identities')
      .select('id')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The first sign-in with an identity: the user and its identity in one transaction.
   * 'email_taken': another account has the e-mail (nothing written); 'identity_taken': the identity was
   * linked meanwhile (nothing written); 'id_taken': the random user id collided (try another).
   */
  async createAccount(
    user: FederatedAccount,
    identity: IdentityRecord,
  ): Promise<'created' | 'email_taken' | 'identity_taken' | 'id_taken'> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        if (user.email !== null) {
          const holder = await trx
            .selectFrom('users')
            .select('user_uuid')
            .where('email', '=', user.email)
            .executeTakeFirst();
          if (holder) return 'email_taken' as const;
        }
        await trx
          .insertInto('users')
          .values({
            user_uuid: user.userUuid,
            email: user.email,
            password_hash: '',
            nickname: user.nickname,
            created_at: user.createdAt,
            // The upstream verified it: the address needs no sign-up mail (docs/federation.md).
            email_verified_at: user.email === null ? null : user.createdAt,
            locale: user.locale ?? null,
          })
          .execute();
        await trx.insertInto('federated_identities').values(identityRow(identity)).execute();
        return 'created' as const;
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (await this.findIdentity(identity.provider, identity.subject)) return 'identity_taken';
      if (user.email !== null) {
        const holder = await this.db
          .selectFrom('users')
          .select('user_uuid')
          .where('email', '=', user.email)
          .executeTakeFirst();
        if (holder) return 'email_taken';
      }
      return 'id_taken';
    }
  }

  /** Links an identity to an existing user; false when (provider, subject) or the id is taken. */
  async linkIdentity(identity: IdentityRecord): Promise<boolean> {
    try {
      await this.db.insertInto('federated_identities').values(identityRow(identity)).execute();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async touchIdentity(id: string, now: number): Promise<void> {
    await this.db
      .updateTable('federated_identities')
      .set({ last_used_at: now })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Unlinks one of the user's identities unless it is the last way into the account: no password, no
   * passkey, no other identity and no guest secret. The check and the delete run in one transaction
   * holding the user's row (PostgreSQL `FOR UPDATE`; SQLite writes one transaction at a time), so two
   * concurrent unlinks cannot both pass the check.
   */
  async removeIdentity(userUuid: number, id: string): Promise<'removed' | 'not_found' | 'last'> {
    return this.db.transaction().execute(async (trx) => {
      await this.#lockUser(trx, userUuid);
      const identities = await trx
        .selectFrom('federated_identities')
        .select('id')
        .where('user_uuid', '=', userUuid)
        .execute();
      if (!identities.some((i) => i.id === id)) return 'not_found' as const;
      if (identities.length === 1 && !(await this.#hasOtherWayIn(trx, userUuid))) return 'last' as const;
      const deleted = await trx
        .deleteFrom('federated_identities')
        .where('id', '=', id)
        .where('user_uuid', '=', userUuid)
        .executeTakeFirst();
      return affected(deleted) === 1 ? ('removed' as const) : ('not_found' as const);
    });
  }

  async #lockUser(trx: Transaction<Database>, userUuid: number): Promise<void> {
    if (this.#postgres) {
      await sql`select user_uuid from users where user_uuid = ${userUuid} for update`.execute(trx);
    } else {
      // Takes SQLite's write lock now, so the reads below see what the delete will act on.
      await trx.updateTable('users').set({ user_uuid: userUuid }).where('user_uuid', '=', userUuid).execute();
    }
  }

  /** A password, a passkey or a guest secret (the ways in besides identities). */
  async #hasOtherWayIn(trx: Transaction<Database>, userUuid: number): Promise<boolean> {
    const user = await trx
      .selectFrom('users')
      .select('password_hash')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    if (user && user.password_hash !== '') return true;
    const passkey = await trx
      .selectFrom('passkeys')
      .select('id')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    if (passkey) return true;
    const guest = await trx
      .selectFrom('guest_accounts')
      .select('user_uuid')
      .where('user_uuid', '=', userUuid)
      .executeTakeFirst();
    return guest !== undefined;
  }

  async saveFlow(flow: FlowRecord): Promise<void> {
    await this.db.deleteFrom('federation_flows').where('expires_at', '<=', flow.createdAt).execute();
    await this.db
      .insertInto('federation_flows')
      .values({
        state_hash: flow.stateHash,
        provider: flow.provider,
        purpose: flow.purpose,
        link_user_uuid: flow.linkUserUuid ?? null,
        return_to: flow.returnTo,
        browser_hash: flow.browserHash,
        nonce: flow.nonce,
        code_verifier_sealed: flow.codeVerifierSealed,
        created_at: flow.createdAt,
        expires_at: flow.expiresAt,
      })
      .execute();
  }

  /** Takes a flow once: the row is deleted by this call; undefined when unknown or already taken. */
  async takeFlow(stateHash: string): Promise<FlowRecord | undefined> {
    const row = await this.db
      .selectFrom('federation_flows')
      .selectAll()
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const deleted = await this.db
      .deleteFrom('federation_flows')
      .where('state_hash', '=', stateHash)
      .executeTakeFirst();
    if (affected(deleted) !== 1) return undefined;
    return {
      stateHash: row.state_hash,
      provider: row.provider,
      purpose: row.purpose as FlowPurpose,
      linkUserUuid: row.link_user_uuid === null ? undefined : Number(row.link_user_uuid),
      returnTo: row.return_to,
      browserHash: row.browser_hash,
      nonce: row.nonce,
      codeVerifierSealed: row.code_verifier_sealed,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
  }

  async saveTicket(ticket: TicketRecord, now: number): Promise<void> {
    await this.db.deleteFrom('federation_tickets').where('expires_at', '<=', now).execute();
    await this.db
      .insertInto('federation_tickets')
      .values({
        ticket_hash: ticket.ticketHash,
        purpose: ticket.purpose,
        user_uuid: ticket.userUuid,
        provider: ticket.provider ?? null,
        created: ticket.created ? 1 : 0,
        expires_at: ticket.expiresAt,
        binder_hash: ticket.binderHash ?? null,
        auth_time: ticket.authTime ?? null,
      })
      .execute();
  }

  /** A ticket of `purpose` without taking it (a link start checks its browser binding first). */
  async findTicket(ticketHash: string, purpose: TicketPurpose): Promise<TicketRecord | undefined> {
    const row = await this.db
      .selectFrom('federation_tickets')
      .selectAll()
      .where('ticket_hash', '=', ticketHash)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    return row && toTicket(row);
  }

  /** Takes a ticket of `purpose` once (deleted by this call); undefined when unknown, taken or another purpose. */
  async takeTicket(ticketHash: string, purpose: TicketPurpose): Promise<TicketRecord | undefined> {
    const ticket = await this.findTicket(ticketHash, purpose);
    if (!ticket) return undefined;
    const deleted = await this.db
      .deleteFrom('federation_tickets')
      .where('ticket_hash', '=', ticketHash)
      .executeTakeFirst();
    if (affected(deleted) !== 1) return undefined;
    return ticket;
  }
}

const toTicket = (row: FederationTicketsTable): TicketRecord => ({
  ticketHash: row.ticket_hash,
  purpose: row.purpose as TicketPurpose,
  userUuid: Number(row.user_uuid),
  provider: row.provider ?? undefined,
  created: Number(row.created) === 1,
  expiresAt: Number(row.expires_at),
  binderHash: row.binder_hash ?? undefined,
  authTime: row.auth_time === null ? undefined : Number(row.auth_time),
});
