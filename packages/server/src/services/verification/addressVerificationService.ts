import { createHash, createHmac, randomBytes, randomInt, randomUUID, type KeyObject } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import type { Logger } from 'pino';
import { AppError, conflict } from '../../errors.js';
import type { User, UserStore } from '../../stores/userStore.js';
import type { VerificationStore } from '../../stores/verificationStore.js';
import type { Mailer } from '../mail/mailer.js';
import { mailBody, mailTranslator } from '../mail/mailText.js';
import { invalidVerificationToken, spendCode } from './emailVerificationService.js';

/** The verification store's purpose for codes and links that verify the account's own address. */
export const ADDRESS_PURPOSE = 'email_address';
/** Codes of this purpose belong to the account, not to one login session (sign-up opens none). */
const ADDRESS_SESSION = 'account';
/** A sign-up mail is often read later: its code and link stay valid a day (the code's guesses stay capped). */
export const ADDRESS_CODE_TTL_MS = 24 * 3_600_000;
/** Wrong guesses allowed against one code before a new one must be requested. */
export const MAX_ADDRESS_CODE_ATTEMPTS = 5;
/** Resends: one a minute and five an hour per account (each mail also carries a new link). */
export const ADDRESS_RESEND_INTERVAL_MS = 60_000;
export const MAX_ADDRESS_MAILS_PER_HOUR = 5;

/** Marks the address verified; a first proof removes the earlier ways in (`AccountSecurityService`). */
export interface AddressProof {
  proveMailbox(
    userUuid: number,
    proof: { reason: 'email_verified'; cutoff: number; keptJti?: string | undefined },
  ): Promise<{ firstProof: boolean }>;
}

/** Path of the link in the mail; `?token=` carries 256 random bits. Its page asks to confirm. */
export const VERIFY_LINK_PATH = '/v1/dev-user/verify-email';
/** Where the link's page posts the token: this verifies. */
export const VERIFY_LINK_CONFIRM_PATH = `${VERIFY_LINK_PATH}/confirm`;

/**
 * Verifies that an account receives mail at its address (decisions §8): sign-up mails a 6-digit code
 * and a link. The code (with the account's login JWT) or the link's token marks the address verified,
 * which lifts the account's sponsored gas from SPONSOR_UNVERIFIED_USER_DAILY_GAS to the regular
 * budget. Codes are stored as HMAC-SHA256 under their own key derived from MASTER_KEY, link tokens as
 * SHA-256; both are single-use, expire after a day, and a code allows five guesses.
 */
export class AddressVerificationService {
  readonly #codeKey: KeyObject;
  #mailbox: AddressProof | undefined;

  constructor(
    private readonly store: VerificationStore,
    private readonly users: Pick<UserStore, 'findById' | 'markEmailVerified' | 'emailVerified'>,
    private readonly mailer: Mailer,
    masterKey: Buffer,
    private readonly publicUrl: string,
    private readonly logger: Logger,
  ) {
    this.#codeKey = deriveHmacKey(masterKey, 'email-address-code/v1');
  }

  /**
   * Where a verification goes once the code or link checked out (the account-security domain, wired after
   * this service): marks the address verified and, on a first proof, purges the earlier ways in.
   */
  useMailboxProof(mailbox: AddressProof): void {
    this.#mailbox = mailbox;
  }

  /**
   * The sign-up mail. Best effort: the account exists whatever happens to the mail, and the user can ask
   * for another (`resend`); a failure is logged, never answered.
   */
  async sendAfterSignup(user: Pick<User, 'userUuid' | 'email' | 'locale'>): Promise<void> {
    try {
      await this.#mail(user, 'signup');
    } catch (err) {
      this.logger.warn(
        { err: err instanceof Error ? err.message : String(err), userUuid: user.userUuid },
        'sign-up verification mail not sent; the user can ask for another',
      );
    }
  }

  /** Mails a fresh code and link (the earlier code stops working). 409 once verified, 429 when asked too often. */
  async resend(userUuid: number): Promise<{ expiresIn: number }> {
    const user = await this.users.findById(userUuid);
    if (!user) throw new AppError(401, 'invalid_token', 'The token names no user');
    if (await this.users.emailVerified(userUuid)) {
      throw conflict('email_already_verified', 'The e-mail address of this account is already verified');
    }
    const now = Date.now();
    const recent = await this.store.codesSentSince(userUuid, ADDRESS_PURPOSE, now - 3_600_000);
    const last = recent[0];
    if (last !== undefined && now - last < ADDRESS_RESEND_INTERVAL_MS) {
      throw rateLimited(
        Math.ceil((last + ADDRESS_RESEND_INTERVAL_MS - now) / 1000),
        'A mail was sent less than a minute ago',
      );
    }
    if (recent.length >= MAX_ADDRESS_MAILS_PER_HOUR) {
      const oldest = recent[recent.length - 1]!;
      throw rateLimited(
        Math.ceil((oldest + 3_600_000 - now) / 1000),
        'Too many mails were sent in the last hour',
      );
    }
    try {
      await this.#mail(user, 'resend');
    } catch {
      throw new AppError(
        503,
        'mail_unavailable',
        'The verification e-mail could not be sent; try again later',
      );
    }
    return { expiresIn: ADDRESS_CODE_TTL_MS / 1000 };
  }

  /**
   * Verifies the address with the mailed code: 400 `code_expired` without a live code (used, superseded
   * or expired), 429 `too_many_attempts` after five wrong guesses, 400 `invalid_code` for a wrong one.
   */
  async verifyCode(userUuid: number, code: string, keptJti?: string): Promise<void> {
    const now = Date.now();
    await spendCode(
      this.store,
      {
        userUuid,
        purpose: ADDRESS_PURPOSE,
        sessionId: ADDRESS_SESSION,
        code,
        maxAttempts: MAX_ADDRESS_CODE_ATTEMPTS,
        now,
      },
      (id) => this.#hashCode(id, code),
    );
    // The presenter holds the account's login JWT and the mailbox's code: that one JWT survives a purge.
    await this.#verified(userUuid, now, keptJti);
  }

  /** Whether the link's token still verifies: its confirm page's GET, which changes nothing. */
  linkWorks(token: string): Promise<boolean> {
    return this.store.tokenOfPurposeUsable(hashToken(token), ADDRESS_PURPOSE, Date.now());
  }

  /**
   * Verifies the address with the link's token (its confirm page's button: opening the link does not, as
   * mail scanners open links); 401 `invalid_verification_token` if unusable. Returns the user.
   */
  async verifyLink(token: string): Promise<number> {
    const now = Date.now();
    const userUuid = await this.store.consumeTokenOfPurpose(hashToken(token), ADDRESS_PURPOSE, now);
    if (userUuid === undefined) throw invalidVerificationToken();
    await this.#verified(userUuid, now);
    return userUuid;
  }

  isVerified(userUuid: number): Promise<boolean> {
    return this.users.emailVerified(userUuid);
  }

  async #verified(userUuid: number, now: number, keptJti?: string): Promise<void> {
    if (this.#mailbox) {
      const cutoff = Math.floor(Date.now() / 1000) + 1;
      const { firstProof } = await this.#mailbox.proveMailbox(userUuid, {
        reason: 'email_verified',
        cutoff,
        keptJti,
      });
      // Login JWTs carry `iat` in whole seconds: a sign-in right after must not fall before the cut-off.
      const wait = cutoff * 1000 - Date.now();
      if (firstProof && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    } else if (await this.users.markEmailVerified(userUuid, now)) {
      this.logger.info({ userUuid }, 'e-mail address verified');
    }
    // The purpose is fulfilled: the other code and links of the account die with it.
    await this.store.retireAll(userUuid, [ADDRESS_PURPOSE], [ADDRESS_PURPOSE], now);
  }

  /**
   * Stores a new code (retiring the earlier one) and a new link token, then mails both, in the account's
   * language; the sign-up mail and a resend differ by their subject only.
   */
  async #mail(user: Pick<User, 'userUuid' | 'email' | 'locale'>, kind: 'signup' | 'resend'): Promise<void> {
    // A guest or passkey-only account has no address to verify (docs/players.md).
    if (user.email === null) return;
    const to = user.email;
    const now = Date.now();
    await this.store.deleteExpired(now - 24 * 3_600_000);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = randomUUID();
    const token = randomBytes(32).toString('base64url');
    await this.store.insertCode({
      id,
      userUuid: user.userUuid,
      purpose: ADDRESS_PURPOSE,
      codeHash: this.#hashCode(id, code),
      expiresAt: now + ADDRESS_CODE_TTL_MS,
      createdAt: now,
      sessionId: ADDRESS_SESSION,
    });
    await this.store.insertToken({
      tokenHash: hashToken(token),
      userUuid: user.userUuid,
      purpose: ADDRESS_PURPOSE,
      expiresAt: now + ADDRESS_CODE_TTL_MS,
      createdAt: now,
    });
    const link = `${this.publicUrl}${VERIFY_LINK_PATH}?token=${token}`;
    const tr = mailTranslator(user.locale);
    try {
      await this.mailer.send({
        to,
        language: tr.locale,
        subject: tr.t(kind === 'signup' ? 'mail.address.subjectSignup' : 'mail.address.subjectResend'),
        text: mailBody([
          tr.t('mail.address.intro'),
          '',
          link,
          '',
          tr.t('mail.address.code', { code }),
          '',
          tr.t('mail.address.validity', { hours: ADDRESS_CODE_TTL_MS / 3_600_000 }),
          tr.t('mail.address.notYou'),
        ]),
      });
    } catch (err) {
      // An unsent code or link must not stay usable.
      await this.store.consumeCode(id, Date.now());
      await this.store.consumeToken(hashToken(token), user.userUuid, ADDRESS_PURPOSE, Date.now());
      throw err;
    }
  }

  #hashCode(id: string, code: string): string {
    return createHmac('sha256', this.#codeKey).update(`${id}:${code}`, 'utf8').digest('hex');
  }
}

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const rateLimited = (retryAfterSeconds: number, message: string) =>
  new AppError(429, 'rate_limited', `${message}; try again in ${retryAfterSeconds} s`, {
    retryAfterSeconds: Math.max(1, retryAfterSeconds),
  });
