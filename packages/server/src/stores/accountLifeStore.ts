import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { type RevocationEntry, revocationKey } from './oauthRevocationStore.js';
import type { OutboxEvent, WebhookOutbox } from './webhookStore.js';

/** A deleted account's login cutoff (Unix seconds, year 9999): every login JWT ever issued is before it. */
const DELETED_LOGINS_VALID_AFTER = 253_402_300_799;
/** What an erased string in the audit log reads. */
export const ERASED = '[erased]';

/** The append-only logs that may name a person: the account's own and the organizations'. */
const AUDIT_LOGS = ['audit_log', 'org_audit'] as const;

/** What `erase` ended and whom it told; `undefined` from `erase` when the account was already gone. */
export interface Erasure {
  deletedAt: number;
  /** The grants it revoked: the registry must refuse their access tokens on every replica. */
  revokedGrants: string[];
  /** The apps told `user.deleted`. */
  notifiedApps: string[];
  /** Session keys marked for the background on-chain revocation. */
  sessionKeys: number;
}

export interface ErasureInput {
  userUuid: number;
  now: number;
  /** The revocation entry of each revoked grant (the registry's expiry rule), written in the transaction. */
  grantRevocation: (grantId: string) => RevocationEntry;
  reason: string;
}

/** Every row about one person, read for the export (docs/account.md); secrets are never selected. */
export interface AccountRecords {
  user: {
    userUuid: number;
    email: string | null;
    nickname: string;
    createdAt: number;
    emailVerifiedAt: number | null;
    hasPassword: boolean;
    /** The language of its mails as saved (migration 0300); null when unknown. */
    locale: string | null;
  };
  guest: { clientId: string; createdAt: number } | undefined;
  passkeys: {
    id: string;
    transports: string;
    backedUp: boolean;
    createdAt: number;
    lastUsedAt: number | null;
  }[];
  identities: {
    id: string;
    provider: string;
    subject: string;
    email: string | null;
    displayName: string | null;
    createdAt: number;
    lastUsedAt: number | null;
  }[];
  consents: { clientId: string; scope: string; grantedAt: number }[];
  grants: {
    grantId: string;
    clientId: string;
    scope: string | null;
    createdAt: number;
    revokedAt: number | null;
    revokedReason: string | null;
  }[];
  loginStatus: { clientId: string; status: string; updatedAt: number }[];
  sessions: { createdAt: number; expiresAt: number }[];
  refreshTokens: {
    clientId: string;
    grantId: string;
    createdAt: number;
    expiresAt: number;
    usedAt: number | null;
  }[];
  wallets: { address: string; kind: string; owner: string; deployed: boolean; createdAt: number }[];
  pin: { walletAddress: string; createdAt: number; lockedUntil: number } | undefined;
  slots: {
    slotId: string;
    clientId: string;
    contentAddress: string;
    metaIdx: number;
    state: string;
    imported: boolean;
    createdAt: number;
  }[];
  contentBalances: { cuid: string; slot: string; balance: string; used: string; updatedAt: number }[];
  listings: {
    id: string;
    slotId: string;
    clientId: string;
    role: 'seller' | 'buyer';
    price: string;
    status: string;
    txHash: string | null;
    createdAt: number;
  }[];
  sessionKeys: {
    keyAddress: string;
    clientId: string;
    walletAddress: string;
    accountAddress: string;
    policy: unknown;
    validUntil: number;
    state: string;
    createdAt: number;
    revokedAt: number | null;
    revokeReason: string | null;
  }[];
  /** The organizations it is a member of (docs/orgs.md), with its role. */
  organizations: { orgId: string; name: string; personal: boolean; role: string; joinedAt: number }[];
  audit: {
    id: string;
    at: number;
    action: string;
    outcome: string;
    status: number;
    errorCode: string | null;
    clientId: string | null;
    address: string;
    details: unknown;
  }[];
}

/** `%` and `_` of a LIKE pattern taken literally (escape character `\`). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * An account's own life (decisions §9, docs/account.md): its erasure, in one transaction over every table
 * that holds something of the person (the outbox's `grant.revoked` and `user.deleted` deliveries and the
 * grants' revocation entries included), and the read of every record about it for the export. It spans the
 * tables of several stores on purpose: an erasure that committed table by table could leave a half-deleted
 * account behind a crash.
 */
export class AccountLifeStore {
  constructor(
    private readonly db: Db,
    private readonly outbox?: WebhookOutbox,
  ) {}

  /**
   * The live apps of the organizations the account owns (docs/orgs.md), and any app no organization holds
   * that it registered: an owner deletes them (or transfers the organization) first, they are not the
   * person's to erase with it. Apps of organizations where the account is only a member do not count.
   */
  async ownedApps(userUuid: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('oauth_clients')
      .select('client_id')
      .where('deleted_at', 'is', null)
      .where((eb) =>
        eb.or([
          eb.and([eb('org_id', 'is', null), eb('owner_uuid', '=', userUuid)]),
          eb(
            'org_id',
            'in',
            eb
              .selectFrom('org_members')
              .select('org_members.org_id')
              .where('org_members.user_uuid', '=', userUuid)
              .where('org_members.role', '=', 'owner'),
          ),
        ]),
      )
      .execute();
    return rows.map((r) => r.client_id);
  }

  /**
   * Erases the account: ends every session, grant, code and session key, deletes its ways in and custody
   * material, scrubs its e-mail and nickname from the audit log, tells each app it had granted, and leaves
   * the users row as a tombstone (`deleted_at`). Undefined when there is no live account `userUuid`.
   */
  async erase(input: ErasureInput): Promise<Erasure | undefined> {
    const { userUuid, now, reason } = input;
    return this.db.transaction().execute(async (trx) => {
      // The row lock (PostgreSQL) or the write lock (SQLite) first: a parallel erasure waits, then finds it gone.
      const user = await trx
        .updateTable('users')
        .set({ deleted_at: now })
        .where('user_uuid', '=', userUuid)
        .where('deleted_at', 'is', null)
        .returning(['email', 'nickname'])
        .executeTakeFirst();
      if (!user) return undefined;

      // Every app that ever had a grant or a consent of the person: each gets `user.deleted`.
      const granted = await trx
        .selectFrom('oauth_grants')
        .select('client_id')
        .where('user_uuid', '=', userUuid)
        .union(trx.selectFrom('oauth_consents').select('client_id').where('user_uuid', '=', userUuid))
        .execute();
      const apps = await trx
        .selectFrom('oauth_clients')
        .select('client_id')
        .where('client_id', 'in', ['', ...granted.map((g) => g.client_id)])
        .where('deleted_at', 'is', null)
        .orderBy('client_id')
        .execute();
      const notifiedApps = apps.map((a) => a.client_id);

      const live = await trx
        .selectFrom('oauth_grants')
        .select(['grant_id', 'client_id'])
        .where('user_uuid', '=', userUuid)
        .where('revoked_at', 'is', null)
        .execute();
      // Where each grant was authorized (device, network) is the person's: erased with the rest.
      await trx
        .updateTable('oauth_grants')
        .set({ user_agent: null, network: null })
        .where('user_uuid', '=', userUuid)
        .execute();
      if (live.length > 0) {
        await trx
          .updateTable('oauth_grants')
          .set({ revoked_at: now, revoked_reason: reason })
          .where('user_uuid', '=', userUuid)
          .where('revoked_at', 'is', null)
          .execute();
      }
      for (const g of live) {
        const entry = input.grantRevocation(g.grant_id);
        await trx
          .insertInto('oauth_revocations')
          .values({
            revocation_key: revocationKey(entry.kind, entry.value),
            kind: entry.kind,
            value: entry.value,
            created_at: now,
            expires_at: entry.expiresAt,
          })
          .onConflict((oc) => oc.column('revocation_key').doUpdateSet({ expires_at: entry.expiresAt }))
          .execute();
      }
      const events: OutboxEvent[] = [
        ...live.map((g) => ({
          type: 'grant.revoked',
          clientId: g.client_id,
          at: now,
          data: { grant_id: g.grant_id, user_id: String(userUuid), reason },
        })),
        ...notifiedApps.map((clientId) => ({
          type: 'user.deleted',
          clientId,
          at: now,
          data: { user_id: String(userUuid) },
        })),
      ];
      await this.outbox?.record(trx, ...events);

      // Codes not yet exchanged would open new grants: spent. Refresh tokens die with their grants; the sealed
      // successor kept for the rotation's grace window goes now.
      await trx
        .updateTable('oauth_codes')
        .set({ used_at: now })
        .where('user_uuid', '=', userUuid)
        .where('used_at', 'is', null)
        .execute();
      await trx
        .updateTable('backend_codes')
        .set({ used_at: now })
        .where('user_uuid', '=', userUuid)
        .where('used_at', 'is', null)
        .execute();
      await trx
        .updateTable('oauth_refresh_tokens')
        .set({ successor_sealed: null })
        .where('user_uuid', '=', userUuid)
        .execute();
      await trx
        .updateTable('oauth_device_authorizations')
        .set({ status: 'denied', decided_at: now })
        .where('user_uuid', '=', userUuid)
        .where('status', '=', 'approved')
        .execute();

      // Session keys stop signing at once; the background sweep revokes them on chain with their own signature.
      const keys = await trx
        .updateTable('session_keys')
        .set({ state: 'revoking', revoke_reason: reason })
        .where('user_uuid', '=', userUuid)
        .where('state', '=', 'active')
        .returning('key_address')
        .execute();
      await trx
        .updateTable('market_listings')
        .set({ status: 'cancelled', updated_at: now })
        .where('seller_uuid', '=', userUuid)
        .where('status', '=', 'active')
        .execute();

      // Organizations (docs/orgs.md): those it owns hold no app by now and end with it; it leaves the others.
      await trx
        .updateTable('organizations')
        .set({ deleted_at: now })
        .where('deleted_at', 'is', null)
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('org_members')
            .select('org_members.org_id')
            .where('org_members.user_uuid', '=', userUuid)
            .where('org_members.role', '=', 'owner'),
        )
        .execute();
      await trx.deleteFrom('org_members').where('user_uuid', '=', userUuid).execute();
      // The invitations it accepted name its address; pending ones to the address are the inviting org's
      // (the person may still accept with a new account) and stay until they expire (docs/account.md).
      await trx
        .updateTable('org_invitations')
        .set({ email: ERASED })
        .where('accepted_by', '=', userUuid)
        .execute();

      // Sessions, consents and every way in; the custody material (sealed server share and mnemonic).
      await trx.deleteFrom('oauth_sessions').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('oauth_consents').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('oauth_login_status').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('passkeys').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('webauthn_challenges').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('federated_identities').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('federation_flows').where('link_user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('federation_tickets').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('guest_accounts').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('email_codes').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('verification_tokens').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('pending_rotations').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('wallet_custody').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('mfa_recovery_codes').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('mfa_login_tokens').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('mfa_totp').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('account_security_links').where('user_uuid', '=', userUuid).execute();
      await trx.deleteFrom('account_reset_holds').where('user_uuid', '=', userUuid).execute();
      // A slot's label defaulted to its owner's nickname.
      await trx.updateTable('slots').set({ token_nickname: '' }).where('owner_uuid', '=', userUuid).execute();

      await this.#scrubAudit(trx, userUuid, user.email, user.nickname);

      // The tombstone: the uuid stays (audit log, slots, wallets), nothing that names the person does.
      await trx
        .updateTable('users')
        .set({
          email: null,
          nickname: '',
          password_hash: '',
          email_verified_at: null,
          locale: null,
          logins_valid_after: DELETED_LOGINS_VALID_AFTER,
          logins_kept_jti: null,
        })
        .where('user_uuid', '=', userUuid)
        .execute();
      return {
        deletedAt: now,
        revokedGrants: live.map((g) => g.grant_id),
        notifiedApps,
        sessionKeys: keys.length,
      };
    });
  }

  /**
   * The audit log keeps the uuid only: the e-mail leaves every entry that holds it (a sign-in attempt names
   * the address, not the account), the nickname every entry of the account or naming its address. A value goes
   * only when it IS the e-mail (any case) or the nickname, never when it contains it: `x@gmail.com`'s deletion
   * must not rewrite another person's `max@gmail.com` in an append-only log. The LIKE only narrows the rows.
   */
  async #scrubAudit(trx: Db, userUuid: number, email: string | null, nickname: string): Promise<void> {
    // The account's own log and every organization's (an invitation names the invited address).
    for (const log of AUDIT_LOGS) await this.#scrubLog(trx, log, userUuid, email, nickname);
  }

  async #scrubLog(
    trx: Db,
    log: (typeof AUDIT_LOGS)[number],
    userUuid: number,
    email: string | null,
    nickname: string,
  ): Promise<void> {
    const actor = String(userUuid);
    const pattern = email ? `%${likeLiteral(email.toLowerCase())}%` : undefined;
    const rows = await trx
      .selectFrom(log)
      .select(['id', 'actor_user', 'details'])
      .where((eb) =>
        pattern === undefined
          ? eb('actor_user', '=', actor)
          : eb.or([eb('actor_user', '=', actor), sql<boolean>`lower(details) like ${pattern} escape '\\'`]),
      )
      .execute();
    const lowerEmail = email?.toLowerCase();
    const isEmail = (value: string) => lowerEmail !== undefined && value.toLowerCase() === lowerEmail;
    const isNickname = (value: string) => nickname !== '' && value === nickname;
    const scrub = (value: unknown, match: (value: string) => boolean): unknown => {
      if (typeof value === 'string') return match(value) ? ERASED : value;
      if (Array.isArray(value)) return value.map((v) => scrub(v, match));
      if (value !== null && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, match)]));
      }
      return value;
    };
    for (const row of rows) {
      const parsed = JSON.parse(row.details) as unknown;
      const withoutEmail = scrub(parsed, isEmail);
      // The entry is about the account when it is the account's or named its address (exactly).
      const about = row.actor_user === actor || JSON.stringify(withoutEmail) !== JSON.stringify(parsed);
      const details = JSON.stringify(
        about ? scrub(withoutEmail, (v) => isEmail(v) || isNickname(v)) : withoutEmail,
      );
      if (details !== row.details) {
        await sql`update ${sql.table(log)} set details = ${details} where id = ${row.id}`.execute(trx);
      }
    }
  }

  /** Every record about the account, for the export; undefined when there is no live account. */
  async records(userUuid: number, auditLimit: number): Promise<AccountRecords | undefined> {
    const db = this.db;
    const user = await db
      .selectFrom('users')
      .selectAll()
      .where('user_uuid', '=', userUuid)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!user) return undefined;
    const [guest, passkeys, identities, consents, grants, loginStatus, sessions, refreshTokens] =
      await Promise.all([
        db
          .selectFrom('guest_accounts')
          .select(['client_id', 'created_at'])
          .where('user_uuid', '=', userUuid)
          .executeTakeFirst(),
        db
          .selectFrom('passkeys')
          .select(['id', 'transports', 'backed_up', 'created_at', 'last_used_at'])
          .where('user_uuid', '=', userUuid)
          .orderBy('created_at')
          .execute(),
        db
          .selectFrom('federated_identities')
          .select(['id', 'provider', 'subject', 'email', 'display_name', 'created_at', 'last_used_at'])
          .where('user_uuid', '=', userUuid)
          .orderBy('created_at')
          .execute(),
        db
          .selectFrom('oauth_consents')
          .select(['client_id', 'scope', 'granted_at'])
          .where('user_uuid', '=', userUuid)
          .orderBy('granted_at')
          .execute(),
        db
          .selectFrom('oauth_grants')
          .select(['grant_id', 'client_id', 'scope', 'created_at', 'revoked_at', 'revoked_reason'])
          .where('user_uuid', '=', userUuid)
          .orderBy('created_at')
          .execute(),
        db
          .selectFrom('oauth_login_status')
          .select(['client_id', 'status', 'updated_at'])
          .where('user_uuid', '=', userUuid)
          .execute(),
        db
          .selectFrom('oauth_sessions')
          .select(['created_at', 'expires_at'])
          .where('user_uuid', '=', userUuid)
          .orderBy('created_at')
          .execute(),
        db
          .selectFrom('oauth_refresh_tokens')
          .select(['client_id', 'grant_id', 'created_at', 'expires_at', 'used_at'])
          .where('user_uuid', '=', userUuid)
          .orderBy('created_at')
          .execute(),
      ]);
    const [wallets, pin, slots, listings, sessionKeys, audit, memberships] = await Promise.all([
      db
        .selectFrom('wallets')
        .select(['address', 'kind', 'owner', 'deployed', 'created_at'])
        .where('user_uuid', '=', userUuid)
        .orderBy('created_at')
        .execute(),
      db
        .selectFrom('wallet_custody')
        .select(['wallet_address', 'created_at', 'locked_until'])
        .where('user_uuid', '=', userUuid)
        .executeTakeFirst(),
      db
        .selectFrom('slots')
        .select(['id', 'client_id', 'content_address', 'meta_idx', 'state', 'imported', 'created_at'])
        .where('owner_uuid', '=', userUuid)
        .orderBy('created_at')
        .execute(),
      db
        .selectFrom('market_listings')
        .select(['id', 'slot_id', 'client_id', 'seller_uuid', 'price', 'status', 'tx_hash', 'created_at'])
        .where((eb) => eb.or([eb('seller_uuid', '=', userUuid), eb('buyer_uuid', '=', userUuid)]))
        .orderBy('created_at')
        .execute(),
      db
        .selectFrom('session_keys')
        .select([
          'key_address',
          'client_id',
          'wallet_address',
          'account_address',
          'policy',
          'valid_until',
          'state',
          'created_at',
          'revoked_at',
          'revoke_reason',
        ])
        .where('user_uuid', '=', userUuid)
        .orderBy('created_at')
        .execute(),
      db
        .selectFrom('audit_log')
        .select(['id', 'at', 'action', 'outcome', 'status', 'error_code', 'client_id', 'address', 'details'])
        .where('actor_user', '=', String(userUuid))
        .orderBy('at', 'desc')
        .orderBy('seq', 'desc')
        .limit(auditLimit)
        .execute(),
      db
        .selectFrom('org_members')
        .innerJoin('organizations', 'organizations.id', 'org_members.org_id')
        .select([
          'org_members.org_id',
          'organizations.name',
          'organizations.personal',
          'org_members.role',
          'org_members.created_at',
        ])
        .where('org_members.user_uuid', '=', userUuid)
        .where('organizations.deleted_at', 'is', null)
        .orderBy('org_members.created_at')
        .execute(),
    ]);
    const slotAddresses = slots.map((s) => s.content_address.toLowerCase());
    const balances =
      slotAddresses.length === 0
        ? []
        : await db
            .selectFrom('content_balances')
            .select(['cuid', 'slot', 'chain_balance', 'chain_used', 'updated_at'])
            .where(sql<string>`lower(slot)`, 'in', slotAddresses)
            .execute();
    return {
      user: {
        userUuid,
        email: user.email,
        nickname: user.nickname,
        createdAt: Number(user.created_at),
        emailVerifiedAt: user.email_verified_at == null ? null : Number(user.email_verified_at),
        hasPassword: user.password_hash !== '',
        locale: user.locale,
      },
      guest: guest ? { clientId: guest.client_id, createdAt: Number(guest.created_at) } : undefined,
      passkeys: passkeys.map((p) => ({
        id: p.id,
        transports: p.transports,
        backedUp: Number(p.backed_up) === 1,
        createdAt: Number(p.created_at),
        lastUsedAt: p.last_used_at == null ? null : Number(p.last_used_at),
      })),
      identities: identities.map((i) => ({
        id: i.id,
        provider: i.provider,
        subject: i.subject,
        email: i.email,
        displayName: i.display_name,
        createdAt: Number(i.created_at),
        lastUsedAt: i.last_used_at == null ? null : Number(i.last_used_at),
      })),
      consents: consents.map((c) => ({
        clientId: c.client_id,
        scope: c.scope,
        grantedAt: Number(c.granted_at),
      })),
      grants: grants.map((g) => ({
        grantId: g.grant_id,
        clientId: g.client_id,
        scope: g.scope,
        createdAt: Number(g.created_at),
        revokedAt: g.revoked_at == null ? null : Number(g.revoked_at),
        revokedReason: g.revoked_reason,
      })),
      loginStatus: loginStatus.map((s) => ({
        clientId: s.client_id,
        status: s.status,
        updatedAt: Number(s.updated_at),
      })),
      sessions: sessions.map((s) => ({ createdAt: Number(s.created_at), expiresAt: Number(s.expires_at) })),
      refreshTokens: refreshTokens.map((r) => ({
        clientId: r.client_id,
        grantId: r.grant_id,
        createdAt: Number(r.created_at),
        expiresAt: Number(r.expires_at),
        usedAt: r.used_at == null ? null : Number(r.used_at),
      })),
      wallets: wallets.map((w) => ({
        address: w.address,
        kind: w.kind,
        owner: w.owner,
        deployed: Number(w.deployed) === 1,
        createdAt: Number(w.created_at),
      })),
      pin: pin
        ? {
            walletAddress: pin.wallet_address,
            createdAt: Number(pin.created_at),
            lockedUntil: Number(pin.locked_until),
          }
        : undefined,
      slots: slots.map((s) => ({
        slotId: s.id,
        clientId: s.client_id,
        contentAddress: s.content_address,
        metaIdx: Number(s.meta_idx),
        state: s.state,
        imported: Number(s.imported) === 1,
        createdAt: Number(s.created_at),
      })),
      contentBalances: balances.map((b) => ({
        cuid: b.cuid,
        slot: b.slot,
        balance: b.chain_balance,
        used: b.chain_used,
        updatedAt: Number(b.updated_at),
      })),
      listings: listings.map((l) => ({
        id: l.id,
        slotId: l.slot_id,
        clientId: l.client_id,
        role: Number(l.seller_uuid) === userUuid ? ('seller' as const) : ('buyer' as const),
        price: l.price,
        status: l.status,
        txHash: l.tx_hash,
        createdAt: Number(l.created_at),
      })),
      sessionKeys: sessionKeys.map((k) => ({
        keyAddress: k.key_address,
        clientId: k.client_id,
        walletAddress: k.wallet_address,
        accountAddress: k.account_address,
        policy: JSON.parse(k.policy) as unknown,
        validUntil: Number(k.valid_until),
        state: k.state,
        createdAt: Number(k.created_at),
        revokedAt: k.revoked_at == null ? null : Number(k.revoked_at),
        revokeReason: k.revoke_reason,
      })),
      organizations: memberships.map((m) => ({
        orgId: m.org_id,
        name: m.name,
        personal: Number(m.personal) === 1,
        role: m.role,
        joinedAt: Number(m.created_at),
      })),
      audit: audit.map((a) => ({
        id: a.id,
        at: Number(a.at),
        action: a.action,
        outcome: a.outcome,
        status: Number(a.status),
        errorCode: a.error_code,
        clientId: a.client_id,
        address: a.address,
        details: JSON.parse(a.details) as unknown,
      })),
    };
  }
}
