import { createHmac, randomBytes, randomInt, randomUUID, type KeyObject } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import type { Logger } from 'pino';
import { safeEqual } from '../../crypto/constantTime.js';
import type { PasswordHasher } from '../../crypto/passwordHasher.js';
import { AppError } from '../../errors.js';
import type { UserStore } from '../../stores/userStore.js';
import type { VerificationStore } from '../../stores/verificationStore.js';
import type { Mailer } from '../mail/mailer.js';
import { mailBody, mailTranslator } from '../mail/mailText.js';
import type { PasswordStrength } from '../defense/passwordStrength.js';
import { MIN_PASSWORD_LENGTH, normaliseEmail } from './accountService.js';

const PURPOSE = 'password_reset';
/** The mailed link's token (`verification_tokens`); wrong code guesses never touch it. */
const LINK_PURPOSE = 'password_reset_link';
/** Reset codes are not tied to a login session (there is none); one code stream per account. */
const SESSION = 'password_reset';
export const RESET_CODE_TTL_MS = 30 * 60_000;
export const MAX_RESET_ATTEMPTS = 5;
/**
 * At most one reset mail a minute and five per code lifetime per account; more requests are answered
 * alike and dropped. The window is the lifetime of a mail's link, so whenever a request is dropped the
 * owner's inbox holds a mail whose link still works: a stranger who knows the address cannot use up
 * the owner's mails.
 */
const RESEND_INTERVAL_MS = 60_000;
const MAX_RESET_MAILS_PER_WINDOW = 5;
/** 24 random bytes: 32 characters, within the interface's `code` field (at most 32). */
const LINK_TOKEN_BYTES = 24;
const LINK_TOKEN_FORMAT = /^[A-Za-z0-9_-]{32}$/;
const MAX_PASSWORD_LENGTH = 1024;

/**
 * What a password reset or change ends besides login JWTs (decisions §8): the login page's sessions
 * and every app's refresh tokens (with the access tokens they minted), on every replica.
 */
export interface AccountSessions {
  endLoginPageSessions(userUuid: number): Promise<unknown>;
  revokeAppGrants(userUuid: number, reason: string): Promise<unknown>;
}

/**
 * A reset proves the mailbox (decisions §9): the new hash is stored with the address marked verified and, on
 * the account's first proof, the removal of every earlier way in (`AccountSecurityService.proveMailbox`).
 */
export interface MailboxProof {
  proveMailbox(
    userUuid: number,
    proof: { reason: 'password_reset'; cutoff: number; passwordHash: string },
  ): Promise<unknown>;
}

const invalidResetCode = () =>
  new AppError(
    400,
    'invalid_reset_code',
    'The e-mail or code is wrong, expired or already used; request a new code',
  );

/**
 * Password reset by e-mail and password change (docs/accounts.md). A reset ends everything the old
 * password opened ("log out everywhere"): every login JWT issued before it (`users.logins_valid_after`,
 * which the authenticator reads from the database for every login JWT, so every replica agrees), every
 * login-page session and every app grant (refresh and access tokens, through the revocation list). A
 * change while signed in does the same but keeps the login JWT that made it (`users.logins_kept_jti`).
 *
 * A reset mail carries two secrets, both single use for 30 minutes and stored as HMAC under a key derived
 * from MASTER_KEY: an 8-digit code to type (the newest mail's only, 5 guesses) and a link with a 192-bit
 * token, sent in the same `code` field. Wrong code guesses burn the code, never a link, so a stranger
 * who knows the address cannot keep its owner from resetting (docs/security.md). Requests answer the
 * same whether or not the address has an account (the mail is sent in the background, so timing does
 * not tell either).
 */
export class PasswordService {
  readonly #codeKey: KeyObject;

  constructor(
    private readonly users: UserStore,
    private readonly codes: VerificationStore,
    private readonly passwords: PasswordHasher,
    private readonly mailer: Mailer,
    masterKey: Buffer,
    /** Where the mail's link points: the console's reset form. */
    private readonly publicUrl: string,
    private readonly logger: Logger,
    private readonly sessions: AccountSessions,
    private readonly mailbox?: MailboxProof,
    /** Refuses weak new passwords (decisions §9). */
    private readonly strength?: PasswordStrength,
  ) {
    this.#codeKey = deriveHmacKey(masterKey, 'password-reset/v1');
  }

  /** Starts a reset; never tells whether the address has an account. */
  requestReset(emailInput: string): void {
    void this.#sendReset(normaliseEmail(emailInput)).catch((err: unknown) =>
      this.logger.warn({ err: (err as Error).message }, 'password reset mail not sent'),
    );
  }

  async #sendReset(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user?.email) return;
    const address = user.email;
    const now = Date.now();
    const recent = await this.codes.codesSentSince(user.userUuid, PURPOSE, now - RESET_CODE_TTL_MS);
    if (
      (recent[0] !== undefined && now - recent[0] < RESEND_INTERVAL_MS) ||
      recent.length >= MAX_RESET_MAILS_PER_WINDOW
    ) {
      return;
    }
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const linkToken = randomBytes(LINK_TOKEN_BYTES).toString('base64url');
    const id = randomUUID();
    await this.codes.insertToken({
      tokenHash: this.#hash('link', linkToken),
      userUuid: user.userUuid,
      purpose: LINK_PURPOSE,
      expiresAt: now + RESET_CODE_TTL_MS,
      createdAt: now,
    });
    await this.codes.insertCode({
      id,
      userUuid: user.userUuid,
      purpose: PURPOSE,
      codeHash: this.#hash(id, code),
      expiresAt: now + RESET_CODE_TTL_MS,
      createdAt: now,
      sessionId: SESSION,
    });
    const link = `${this.publicUrl}/console#/reset/confirm?email=${encodeURIComponent(address)}&code=${linkToken}`;
    const tr = mailTranslator(user.locale);
    try {
      await this.mailer.send({
        to: address,
        language: tr.locale,
        subject: tr.t('mail.reset.subject'),
        text: mailBody([
          tr.t('mail.reset.code', { code }),
          '',
          tr.t('mail.reset.enter', { minutes: RESET_CODE_TTL_MS / 60_000 }),
          link,
          '',
          tr.t('mail.reset.notYou'),
        ]),
      });
    } catch (err) {
      await this.codes.consumeCode(id, Date.now());
      await this.codes.consumeToken(this.#hash('link', linkToken), user.userUuid, LINK_PURPOSE, Date.now());
      throw err;
    }
  }

  /**
   * Sets a new password with a mailed code; every earlier session of the user ends. The code proves the
   * mailbox, so the address becomes verified (a first proof purges the earlier ways in). Returns the user.
   */
  async reset(emailInput: string, code: string, newPassword: string): Promise<number> {
    checkPassword(newPassword);
    // Before the account is looked up and the code spent: with the e-mail given as the only user input,
    // so the answer tells nothing about whether the account exists, and a weak choice costs no guess.
    await this.strength?.check(newPassword, [normaliseEmail(emailInput)], 'new_password');
    const user = await this.users.findByEmail(normaliseEmail(emailInput));
    if (!user) throw invalidResetCode();
    const now = Date.now();
    const secret = code.trim();
    if (LINK_TOKEN_FORMAT.test(secret)) {
      // The link's token: 192 bits cannot be guessed, so a wrong one costs no attempt of the code.
      const used = await this.codes.consumeToken(
        this.#hash('link', secret),
        user.userUuid,
        LINK_PURPOSE,
        now,
      );
      if (!used) throw invalidResetCode();
    } else {
      const live = await this.codes.liveCode(user.userUuid, PURPOSE, SESSION, now);
      if (!live) throw invalidResetCode();
      // Count the guess before comparing, so parallel guesses cannot exceed the limit.
      if (!(await this.codes.reserveCodeAttempt(live.id, MAX_RESET_ATTEMPTS, now))) {
        throw new AppError(
          429,
          'too_many_attempts',
          'Too many wrong codes; open the link in the e-mail or request a new code',
        );
      }
      if (!safeEqual(this.#hash(live.id, secret), live.codeHash)) throw invalidResetCode();
      if (!(await this.codes.consumeCode(live.id, now))) throw invalidResetCode();
    }
    // Every other code and link of the account dies with this reset.
    await this.codes.retireAll(user.userUuid, [PURPOSE], [LINK_PURPOSE], now);
    await this.#setPassword(user.userUuid, newPassword, null, 'password_reset');
    return user.userUuid;
  }

  /**
   * Changes the password after checking the current one; every other session of the user ends, the
   * login JWT `currentJti` (the one that asked) keeps working.
   */
  async change(
    userUuid: number,
    currentJti: string,
    currentPassword: string,
    newPassword: string,
  ): Promise<void> {
    checkPassword(newPassword);
    const user = await this.users.findById(userUuid);
    const ok = await this.passwords.verify(
      currentPassword.slice(0, MAX_PASSWORD_LENGTH),
      user?.passwordHash ?? (await this.passwords.dummyHash()),
    );
    if (!user || !ok) throw new AppError(401, 'invalid_credentials', 'The current password is wrong');
    await this.strength?.check(newPassword, [user.email, user.nickname], 'new_password');
    await this.#setPassword(userUuid, newPassword, currentJti, 'password_changed');
  }

  /**
   * Login JWTs carry `iat` in whole seconds, so the cutoff is the next second boundary: every token issued
   * up to now (but `keptJti`) is void, and the answer waits for that boundary so that a sign-in after it
   * is not. The login-page sessions and app grants end after the new hash is stored, so a sign-in with
   * the old password racing the change cannot open one that survives.
   */
  async #setPassword(
    userUuid: number,
    newPassword: string,
    keptJti: string | null,
    reason: string,
  ): Promise<void> {
    const hash = await this.passwords.hash(newPassword);
    const cutoff = Math.floor(Date.now() / 1000) + 1;
    if (reason === 'password_reset' && this.mailbox) {
      await this.mailbox.proveMailbox(userUuid, { reason, cutoff, passwordHash: hash });
    } else {
      await this.users.setPassword(userUuid, hash, cutoff, keptJti);
    }
    await this.sessions.endLoginPageSessions(userUuid);
    await this.sessions.revokeAppGrants(userUuid, reason);
    const wait = cutoff * 1000 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  #hash(id: string, code: string): string {
    return createHmac('sha256', this.#codeKey).update(`${id}:${code}`).digest('hex');
  }
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError(
      400,
      'weak_password',
      `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
      {
        field: 'new_password',
      },
    );
  }
}
