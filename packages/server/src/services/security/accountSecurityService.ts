import { createHmac, randomBytes, type KeyObject } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import type { Logger } from 'pino';
import { AppError } from '../../errors.js';
import type {
  AccountSecurityStore,
  RemovedWaysIn,
  SecurityLinkRecord,
} from '../../stores/accountSecurityStore.js';
import type { Locale } from '../../i18n/locales.js';
import type { Translator } from '../../i18n/translator.js';
import type { Mailer } from '../mail/mailer.js';
import { mailBody, mailTranslator, originLines } from '../mail/mailText.js';
import { networkOf } from '../network/ipAddresses.js';
import type { RequestContext } from './requestContext.js';

/** How long a security mail's "this wasn't me" link works. */
export const SECURE_LINK_TTL_MS = 7 * 24 * 3_600_000;
/** Where the link points (`GET` shows a confirm step, `POST` acts). */
export const SECURE_PATH = '/account/secure';
/** 32 random bytes, base64url. */
const SECURE_TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;
const MAX_USER_AGENT = 200;

/** A change to an account's ways in, password or grants that its owner is told about (decisions §9). */
export type SecurityChange =
  | { kind: 'passkey_added'; passkeyId: string }
  | { kind: 'passkey_removed'; passkeyId: string }
  | { kind: 'identity_linked'; provider: string; identityId?: string | undefined }
  | { kind: 'identity_unlinked'; identityId: string }
  | { kind: 'guest_upgraded' }
  | { kind: 'password_changed' }
  | { kind: 'password_reset' }
  | { kind: 'session_key_granted'; clientId: string }
  | { kind: 'totp_enabled' }
  | { kind: 'totp_removed' }
  | { kind: 'ways_in_removed'; removed: RemovedWaysIn };

export interface SecurityAccounts {
  /** The account's address and the language of its mails (unknown: English). */
  findUser(userUuid: number): Promise<{ email: string | null; locale?: Locale | undefined } | undefined>;
  emailVerified(userUuid: number): Promise<boolean>;
}

/** The parts of ending an account's sessions that are not rows of the purge's transaction. */
export interface SecuritySessions {
  /** Every app grant (refresh and access tokens), on every replica. */
  revokeAppGrants(userUuid: number, reason: string): Promise<unknown>;
  /** Starts the background revocation of the session keys marked `revoking` (on chain). */
  sweepSessionKeys(): void;
}

const invalidLink = () =>
  new AppError(400, 'invalid_security_link', 'The link is unknown, expired or already used');

export const passwordResetRequired = () =>
  new AppError(
    401,
    'password_reset_required',
    'This account was secured after a "this wasn\'t me" report: reset the password by e-mail to sign in again',
  );

/**
 * Account security (decisions §9 "Ways in", docs/security.md):
 * - a mailbox proof (password reset, address verification) that is the account's first purges every way in
 *   added before it and ends every session (`proveMailbox`);
 * - every change to the ways in, the password and every session-key grant mails the verified address with
 *   a one-time "this wasn't me" link (`notify`), sent after the change and in the background;
 * - that link, confirmed, ends every session, undoes the reported way in and holds every sign-in until a
 *   password reset (`confirm`, `checkSignIn`).
 * Link tokens are 256 random bits stored as HMAC-SHA256 under a key derived from MASTER_KEY, single use,
 * for 7 days.
 */
export class AccountSecurityService {
  readonly #linkKey: KeyObject;

  constructor(
    private readonly store: AccountSecurityStore,
    private readonly accounts: SecurityAccounts,
    private readonly sessions: SecuritySessions,
    private readonly mailer: Mailer,
    masterKey: Buffer,
    private readonly publicUrl: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.#linkKey = deriveHmacKey(masterKey, 'account-security-link/v1');
  }

  /**
   * The mailbox of `userUuid` was proved (a reset's code or link, the sign-up mail's code or link). Marks the
   * address verified and, when it never was, removes every passkey, linked identity and guest secret and
   * ends every login JWT (but `keptJti`: the one that presented a verification code), login-page session,
   * app grant and session key, in one transaction; the grants' revocation list and the chain follow, and the
   * mail says what was removed. A reset passes its new password hash, stored in the same transaction.
   */
  async proveMailbox(
    userUuid: number,
    proof: {
      reason: 'password_reset' | 'email_verified';
      cutoff: number;
      keptJti?: string | undefined;
      passwordHash?: string | undefined;
    },
  ): Promise<{ firstProof: boolean }> {
    const now = this.now();
    const { firstProof, removed } = await this.store.proveMailbox(userUuid, {
      now,
      cutoff: proof.cutoff,
      keptJti: proof.keptJti ?? null,
      reason: `mailbox_proof_${proof.reason}`.slice(0, 40),
      passwordHash: proof.passwordHash,
    });
    if (!firstProof) return { firstProof };
    this.logger.info(
      {
        userUuid,
        passkeys: removed.passkeys.length,
        identities: removed.identities.length,
        guestSecret: removed.guestSecret,
        totp: removed.totp,
      },
      'first mailbox proof: earlier ways in removed, every session ended',
    );
    await this.#finishCutoff(userUuid, `mailbox_proof`, now);
    this.notify(userUuid, { kind: 'ways_in_removed', removed });
    return { firstProof };
  }

  /**
   * Mails the account's verified address about `change` (none when it has no verified address). Never
   * fails or delays the change: the mail is written in the background and a failure is logged.
   */
  notify(userUuid: number, change: SecurityChange, context: RequestContext = {}): void {
    void this.#send(userUuid, change, context).catch((err: unknown) =>
      this.logger.warn(
        { err: err instanceof Error ? err.message : String(err), userUuid, change: change.kind },
        'security mail not sent',
      ),
    );
  }

  /** Whether the link still works: the confirm page's GET, which changes nothing. */
  async linkWorks(token: string): Promise<boolean> {
    if (!SECURE_TOKEN_FORMAT.test(token)) return false;
    return (await this.store.liveLink(this.#hash(token), this.now())) !== undefined;
  }

  /**
   * "This wasn't me", confirmed: every session, login JWT, refresh token and session key of the account
   * ends, the reported passkey or identity is removed, and every sign-in is refused until a password reset
   * by e-mail. 400 `invalid_security_link` (nothing changed) for an unknown, used or expired link.
   */
  async confirm(token: string): Promise<void> {
    if (!SECURE_TOKEN_FORMAT.test(token)) throw invalidLink();
    const now = this.now();
    const cutoff = Math.floor(now / 1000) + 1;
    const link = await this.store.confirmLink(
      this.#hash(token),
      { now, cutoff, keptJti: null, reason: 'account_secured' },
      undoOf,
    );
    if (!link) throw invalidLink();
    this.logger.warn(
      { userUuid: link.userUuid, change: link.change },
      'account secured from a security mail: sessions ended, password reset required',
    );
    await this.#finishCutoff(link.userUuid, 'account_secured', now);
    // A sign-in right after (the reset) must not fall before the cut-off's second.
    const wait = cutoff * 1000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** Every sign-in (password, passkey, federated, guest, the login page) asks first: 401 while held. */
  async checkSignIn(userUuid: number): Promise<void> {
    if (await this.store.resetRequired(userUuid)) throw passwordResetRequired();
  }

  /** Finishes cut-offs a crash left between their transaction and the grants' revocation (at start). */
  async finishPending(): Promise<void> {
    for (const c of await this.store.pendingCutoffs()) {
      await this.#finishCutoff(c.userUuid, c.reason, c.createdAt);
    }
  }

  async #finishCutoff(userUuid: number, reason: string, createdAt: number): Promise<void> {
    await this.sessions.revokeAppGrants(userUuid, reason);
    await this.store.finishCutoff(userUuid, createdAt);
    this.sessions.sweepSessionKeys();
  }

  async #send(userUuid: number, change: SecurityChange, context: RequestContext): Promise<void> {
    const user = await this.accounts.findUser(userUuid);
    if (!user?.email || !(await this.accounts.emailVerified(userUuid))) return;
    const now = this.now();
    const token = randomBytes(32).toString('base64url');
    await this.store.insertLink(this.#hash(token), {
      userUuid,
      change: change.kind,
      subject: subjectOf(change),
      createdAt: now,
      expiresAt: now + SECURE_LINK_TTL_MS,
    });
    const network = context.ip === undefined ? undefined : networkOf(context.ip);
    const agent = context.userAgent?.replace(/[\p{Cc}\p{Cf}]/gu, ' ').slice(0, MAX_USER_AGENT);
    const tr = mailTranslator(user.locale);
    const { subject, lines } = wordingOf(change, tr);
    await this.mailer.send({
      to: user.email,
      language: tr.locale,
      subject,
      text: mailBody([
        ...lines,
        '',
        ...originLines(tr, { at: now, network, device: agent }),
        '',
        tr.t('mail.security.wasYou'),
        tr.t('mail.security.notYou'),
        '',
        `${this.publicUrl}${SECURE_PATH}?token=${token}`,
        '',
        tr.t('mail.security.linkValidity', { days: SECURE_LINK_TTL_MS / (24 * 3_600_000) }),
      ]),
    });
  }

  #hash(token: string): string {
    return createHmac('sha256', this.#linkKey).update(token, 'utf8').digest('hex');
  }
}

const subjectOf = (change: SecurityChange): string | undefined => {
  switch (change.kind) {
    case 'passkey_added':
    case 'passkey_removed':
      return change.passkeyId;
    case 'identity_linked':
      return change.identityId !== undefined ? `id:${change.identityId}` : `provider:${change.provider}`;
    case 'identity_unlinked':
      return change.identityId;
    case 'session_key_granted':
      return change.clientId;
    default:
      return undefined;
  }
};

/** What confirming a link undoes: the way in its mail reported as added. */
function undoOf(link: SecurityLinkRecord): {
  passkeyId?: string;
  identityId?: string;
  provider?: string;
  totp?: boolean;
} {
  // An authenticator someone else enrolled would lock the owner out after the reset: it goes.
  if (link.change === 'totp_enabled') return { totp: true };
  if (link.subject === undefined) return {};
  if (link.change === 'passkey_added') return { passkeyId: link.subject };
  if (link.change === 'identity_linked') {
    return link.subject.startsWith('id:')
      ? { identityId: link.subject.slice(3) }
      : { provider: link.subject.replace(/^provider:/, '') };
  }
  return {};
}

/** The first 16 characters of a credential id, as the mails show it. */
const credentialOf = (id: string): string => id.slice(0, 16);

/** Each change's subject and opening, in the translator's language. */
function wordingOf(change: SecurityChange, tr: Translator): { subject: string; lines: string[] } {
  switch (change.kind) {
    case 'passkey_added':
      return {
        subject: tr.t('mail.security.passkeyAdded.subject'),
        lines: [tr.t('mail.security.passkeyAdded.body', { credential: credentialOf(change.passkeyId) })],
      };
    case 'passkey_removed':
      return {
        subject: tr.t('mail.security.passkeyRemoved.subject'),
        lines: [tr.t('mail.security.passkeyRemoved.body', { credential: credentialOf(change.passkeyId) })],
      };
    case 'identity_linked':
      return {
        subject: tr.t('mail.security.identityLinked.subject'),
        lines: [tr.t('mail.security.identityLinked.body', { provider: change.provider })],
      };
    case 'identity_unlinked':
      return {
        subject: tr.t('mail.security.identityUnlinked.subject'),
        lines: [tr.t('mail.security.identityUnlinked.body')],
      };
    case 'guest_upgraded':
      return {
        subject: tr.t('mail.security.guestUpgraded.subject'),
        lines: [tr.t('mail.security.guestUpgraded.body')],
      };
    case 'password_changed':
      return {
        subject: tr.t('mail.security.passwordChanged.subject'),
        lines: [tr.t('mail.security.passwordChanged.body')],
      };
    case 'password_reset':
      return {
        subject: tr.t('mail.security.passwordReset.subject'),
        lines: [tr.t('mail.security.passwordReset.body')],
      };
    case 'totp_enabled':
      return {
        subject: tr.t('mail.security.totpEnabled.subject'),
        lines: [tr.t('mail.security.totpEnabled.body')],
      };
    case 'totp_removed':
      return {
        subject: tr.t('mail.security.totpRemoved.subject'),
        lines: [tr.t('mail.security.totpRemoved.body')],
      };
    case 'session_key_granted':
      return {
        subject: tr.t('mail.security.sessionKeyGranted.subject'),
        lines: [tr.t('mail.security.sessionKeyGranted.body', { app: change.clientId })],
      };
    case 'ways_in_removed': {
      const { passkeys, identities, guestSecret, totp } = change.removed;
      const items = [
        ...passkeys.map((p) =>
          tr.t('mail.security.removed.passkey', {
            credential: credentialOf(p.id),
            added: new Date(p.createdAt),
          }),
        ),
        ...identities.map((i) =>
          i.displayName
            ? tr.t('mail.security.removed.namedIdentity', {
                provider: i.provider,
                name: i.displayName,
                added: new Date(i.createdAt),
              })
            : tr.t('mail.security.removed.identity', { provider: i.provider, added: new Date(i.createdAt) }),
        ),
        ...(guestSecret ? [tr.t('mail.security.removed.guestSecret')] : []),
        ...(totp ? [tr.t('mail.security.removed.totp')] : []),
      ];
      return {
        subject: tr.t('mail.security.waysInRemoved.subject'),
        lines: [
          tr.t('mail.security.waysInRemoved.body'),
          '',
          tr.t(items.length > 0 ? 'mail.security.waysInRemoved.list' : 'mail.security.waysInRemoved.nothing'),
          // A list: one item a line, each after a dash, whatever the language.
          ...items.map((item) => `- ${item}`),
        ],
      };
    }
  }
}
