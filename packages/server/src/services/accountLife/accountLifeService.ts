import type { Logger } from 'pino';
import { AppError } from '../../errors.js';
import type { AccountLifeStore, AccountRecords } from '../../stores/accountLifeStore.js';
import type { RevocationEntry } from '../../stores/oauthRevocationStore.js';
import { normaliseEmail } from '../accounts/accountService.js';

/** The reason recorded on what a deletion ends (grants, session keys; `grant.revoked` webhooks). */
export const ACCOUNT_DELETED = 'account_deleted';
/** The newest audit entries an export carries. */
export const EXPORT_AUDIT_LIMIT = 1000;
export const EXPORT_FORMAT = 'dauth.account-export/1';

/** What an account's own life needs beyond its store. */
export interface AccountLifePorts {
  /** Refuses a grant's tokens on this replica at once and tells the others (the registry). */
  revokeGrant(entry: RevocationEntry): Promise<void>;
  /** A revocation entry for a grant, living as long as its last access token could. */
  grantRevocation(grantId: string): RevocationEntry;
  /** One pass of the session keys' background revocation (it retries what fails). */
  sweepSessionKeys(): Promise<void>;
  appName(clientId: string): Promise<string | undefined>;
}

/** The export document (docs/account.md, "Export"). */
export type AccountExport = Awaited<ReturnType<AccountLifeService['export']>>;

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
const isoSeconds = (s: number) => new Date(s * 1000).toISOString();

/**
 * Deleting and exporting an account (decisions §9 "the account's own life", docs/account.md). A deletion
 * commits every database change in one transaction (`AccountLifeStore.erase`, webhooks through its outbox);
 * what lives outside the database follows: the revocation list of every replica (also reloaded from the
 * rows the transaction wrote) and the session keys' on-chain revocation (the background sweep retries it).
 */
export class AccountLifeService {
  constructor(
    private readonly store: AccountLifeStore,
    private readonly ports: AccountLifePorts,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Deletes the account once `confirm` names it (its e-mail or its uuid); answers when it was deleted. */
  async delete(userUuid: number, confirm: string): Promise<{ deletedAt: number }> {
    const records = await this.store.records(userUuid, 0);
    if (!records) throw new AppError(404, 'account_not_found', 'The account no longer exists');
    const given = confirm.trim();
    const named =
      given === String(userUuid) ||
      (records.user.email !== null && normaliseEmail(given) === records.user.email);
    if (!named) {
      throw new AppError(
        400,
        'confirmation_mismatch',
        "confirm must be the account's e-mail address or its uuid",
        { field: 'confirm' },
      );
    }
    const apps = await this.store.ownedApps(userUuid);
    if (apps.length > 0) {
      throw new AppError(
        409,
        'account_owns_apps',
        'Delete the apps this account owns first: they are not erased with it',
        { client_ids: apps },
      );
    }
    const erasure = await this.store.erase({
      userUuid,
      now: this.now(),
      reason: ACCOUNT_DELETED,
      grantRevocation: (grantId) => this.ports.grantRevocation(grantId),
    });
    if (!erasure) throw new AppError(404, 'account_not_found', 'The account no longer exists');
    // Committed: the revocation rows are in the database (a replica reloads them), this tells every replica now.
    for (const grantId of erasure.revokedGrants) {
      await this.ports
        .revokeGrant(this.ports.grantRevocation(grantId))
        .catch((err: unknown) =>
          this.logger.warn({ err, grantId }, 'grant revocation not broadcast; replicas reload it'),
        );
    }
    if (erasure.sessionKeys > 0) {
      void this.ports
        .sweepSessionKeys()
        .catch((err: unknown) => this.logger.warn({ err }, 'session key sweep after a deletion failed'));
    }
    this.logger.info(
      {
        userUuid,
        grants: erasure.revokedGrants.length,
        apps: erasure.notifiedApps.length,
        sessionKeys: erasure.sessionKeys,
      },
      'account deleted',
    );
    return { deletedAt: erasure.deletedAt };
  }

  /** Everything about the person as one JSON document, no secret (docs/account.md lists each field). */
  async export(userUuid: number) {
    const r = await this.store.records(userUuid, EXPORT_AUDIT_LIMIT);
    if (!r) throw new AppError(404, 'account_not_found', 'The account no longer exists');
    const names = new Map<string, string | null>();
    const clientIds = new Set([
      ...r.consents.map((c) => c.clientId),
      ...r.grants.map((g) => g.clientId),
      ...r.slots.map((s) => s.clientId),
      ...r.sessionKeys.map((k) => k.clientId),
    ]);
    for (const id of clientIds) names.set(id, (await this.ports.appName(id)) ?? null);
    const app = (clientId: string) => ({ client_id: clientId, app_name: names.get(clientId) ?? null });
    return {
      format: EXPORT_FORMAT,
      exported_at: new Date(this.now()).toISOString(),
      profile: {
        user_id: String(r.user.userUuid),
        email: r.user.email,
        email_verified: r.user.emailVerifiedAt !== null,
        email_verified_at: iso(r.user.emailVerifiedAt),
        nickname: r.user.nickname,
        created_at: iso(r.user.createdAt),
        guest: r.guest !== undefined,
        locale: r.user.locale,
      },
      ways_in: waysIn(r),
      consents: r.consents.map((c) => ({ ...app(c.clientId), scope: c.scope, granted_at: iso(c.grantedAt) })),
      grants: r.grants.map((g) => ({
        grant_id: g.grantId,
        ...app(g.clientId),
        scope: g.scope,
        created_at: iso(g.createdAt),
        revoked_at: iso(g.revokedAt),
        revoked_reason: g.revokedReason,
      })),
      login_status: r.loginStatus.map((s) => ({
        client_id: s.clientId,
        status: s.status,
        updated_at: iso(s.updatedAt),
      })),
      sessions: {
        login_page: r.sessions.map((s) => ({ created_at: iso(s.createdAt), expires_at: iso(s.expiresAt) })),
        refresh_tokens: r.refreshTokens.map((t) => ({
          client_id: t.clientId,
          grant_id: t.grantId,
          created_at: iso(t.createdAt),
          expires_at: iso(t.expiresAt),
          used_at: iso(t.usedAt),
        })),
      },
      wallets: r.wallets.map((w) => ({
        address: w.address,
        kind: w.kind,
        owner: w.owner,
        deployed: w.deployed,
        created_at: iso(w.createdAt),
      })),
      pin: r.pin
        ? {
            wallet_address: r.pin.walletAddress,
            created_at: iso(r.pin.createdAt),
            locked_until: r.pin.lockedUntil > 0 ? iso(r.pin.lockedUntil) : null,
          }
        : null,
      slots: r.slots.map((s) => ({
        slot_id: s.slotId,
        ...app(s.clientId),
        content_address: s.contentAddress,
        meta_idx: s.metaIdx,
        state: s.state,
        imported: s.imported,
        created_at: iso(s.createdAt),
      })),
      purchases: {
        content: r.audit
          .filter((a) => a.action === 'content.purchase' && a.outcome === 'success')
          .map((a) => ({ at: iso(a.at), ...(a.details as Record<string, unknown>) })),
        content_balances: r.contentBalances.map((b) => ({
          cuid: b.cuid,
          slot_address: b.slot,
          balance: b.balance,
          used: b.used,
          updated_at: iso(b.updatedAt),
        })),
        market_listings: r.listings.map((l) => ({
          listing_id: l.id,
          slot_id: l.slotId,
          client_id: l.clientId,
          role: l.role,
          price: l.price,
          status: l.status,
          tx_hash: l.txHash,
          created_at: iso(l.createdAt),
        })),
      },
      session_keys: r.sessionKeys.map((k) => ({
        session_key: k.keyAddress,
        ...app(k.clientId),
        wallet_address: k.walletAddress,
        account_address: k.accountAddress,
        policy: k.policy,
        valid_until: isoSeconds(k.validUntil),
        state: k.state,
        created_at: iso(k.createdAt),
        revoked_at: iso(k.revokedAt),
        revoke_reason: k.revokeReason,
      })),
      organizations: r.organizations.map((o) => ({
        org_id: o.orgId,
        name: o.name,
        personal: o.personal,
        role: o.role,
        joined_at: iso(o.joinedAt),
      })),
      audit: r.audit.map((a) => ({
        id: a.id,
        at: iso(a.at),
        action: a.action,
        outcome: a.outcome,
        status: a.status,
        error_code: a.errorCode,
        client_id: a.clientId,
        address: a.address,
        details: a.details,
      })),
    };
  }
}

/** The ways in, metadata only: never a hash, a public key or a secret. */
function waysIn(r: AccountRecords) {
  return {
    password: r.user.hasPassword,
    guest: r.guest ? { client_id: r.guest.clientId, created_at: iso(r.guest.createdAt) } : null,
    passkeys: r.passkeys.map((p) => ({
      id: p.id,
      transports: p.transports.split(',').filter(Boolean),
      backed_up: p.backedUp,
      created_at: iso(p.createdAt),
      last_used_at: iso(p.lastUsedAt),
    })),
    identities: r.identities.map((i) => ({
      id: i.id,
      provider: i.provider,
      subject: i.subject,
      email: i.email,
      display_name: i.displayName,
      created_at: iso(i.createdAt),
      last_used_at: iso(i.lastUsedAt),
    })),
  };
}
