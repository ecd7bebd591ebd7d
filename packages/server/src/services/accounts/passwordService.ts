import { createHmac, hkdfSync, randomInt, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { safeEqual } from '../../crypto/constantTime.js';
import type { PasswordHasher } from '../../crypto/passwordHasher.js';
import { AppError } from '../../errors.js';
import type { UserStore } from '../../stores/userStore.js';
import type { VerificationStore } from '../../stores/verificationStore.js';
import type { Mailer } from '../mail/mailer.js';
import { MIN_PASSWORD_LENGTH, normaliseEmail } from './accountService.js';

const PURPOSE = 'password_reset';
/** Reset codes are not tied to a login session (there is none); one code stream per account. */
const SESSION = 'password_reset';
export const RESET_CODE_TTL_MS = 30 * 60_000;
export const MAX_RESET_ATTEMPTS = 5;
/** At most one reset mail a minute and five an hour per account; more requests are answered alike and dropped. */
const RESEND_INTERVAL_MS = 60_000;
const MAX_RESET_MAILS_PER_HOUR = 5;
const MAX_PASSWORD_LENGTH = 1024;

const invalidResetCode = () =>
  new AppError(
    400,
    'invalid_reset_code',
    'The e-mail or code is wrong, expired or already used; request a new code',
  );

/**
 * Password reset by e-mail and password change (docs/accounts.md). Both void every login JWT of the
 * user issued before the change ("log out everywhere"): `users.logins_valid_after`, which the
 * authenticator checks for every login JWT, on every replica (it is read from the database).
 *
 * A reset code is 8 digits, single use, 30 minutes, 5 guesses, stored as HMAC under a key derived from
 * MASTER_KEY. Requests answer the same whether or not the address has an account (the mail is sent in
 * the background, so timing does not tell either).
 */
export class PasswordService {
  readonly #codeKey: Buffer;

  constructor(
    private readonly users: UserStore,
    private readonly codes: VerificationStore,
    private readonly passwords: PasswordHasher,
    private readonly mailer: Mailer,
    masterKey: Buffer,
    /** Where the mail's link points: the console's reset form. */
    private readonly publicUrl: string,
    private readonly logger: Logger,
  ) {
    this.#codeKey = Buffer.from(
      hkdfSync('sha256', masterKey, Buffer.alloc(0), 'dauth/password-reset/v1', 32),
    );
  }

  /** Starts a reset; never tells whether the address has an account. */
  requestReset(emailInput: string): void {
    void this.#sendReset(normaliseEmail(emailInput)).catch((err: unknown) =>
      this.logger.warn({ err: (err as Error).message }, 'password reset mail not sent'),
    );
  }

  async #sendReset(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user) return;
    const now = Date.now();
    const recent = await this.codes.codesSentSince(user.userUuid, PURPOSE, now - 3_600_000);
    if (
      (recent[0] !== undefined && now - recent[0] < RESEND_INTERVAL_MS) ||
      recent.length >= MAX_RESET_MAILS_PER_HOUR
    ) {
      return;
    }
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const id = randomUUID();
    await this.codes.insertCode({
      id,
      userUuid: user.userUuid,
      purpose: PURPOSE,
      codeHash: this.#hash(id, code),
      expiresAt: now + RESET_CODE_TTL_MS,
      createdAt: now,
      sessionId: SESSION,
    });
    const link = `${this.publicUrl}/console#/reset/confirm?email=${encodeURIComponent(user.email)}&code=${code}`;
    try {
      await this.mailer.send({
        to: user.email,
        subject: 'Reset your dauth password',
        text: [
          `Your dauth password reset code is ${code}.`,
          '',
          `Enter it within ${RESET_CODE_TTL_MS / 60_000} minutes on the reset form, or open:`,
          link,
          '',
          'If you did not ask for it, ignore this e-mail: your password stays as it is.',
        ].join('\n'),
      });
    } catch (err) {
      await this.codes.consumeCode(id, Date.now());
      throw err;
    }
  }

  /** Sets a new password with a mailed code; every earlier login JWT of the user stops working. */
  async reset(emailInput: string, code: string, newPassword: string): Promise<void> {
    checkPassword(newPassword);
    const user = await this.users.findByEmail(normaliseEmail(emailInput));
    if (!user) throw invalidResetCode();
    const now = Date.now();
    const live = await this.codes.liveCode(user.userUuid, PURPOSE, SESSION, now);
    if (!live) throw invalidResetCode();
    // Count the guess before comparing, so parallel guesses cannot exceed the limit.
    if (!(await this.codes.reserveCodeAttempt(live.id, MAX_RESET_ATTEMPTS, now))) {
      throw new AppError(429, 'too_many_attempts', 'Too many wrong codes; request a new one');
    }
    if (!safeEqual(this.#hash(live.id, code.trim()), live.codeHash)) throw invalidResetCode();
    if (!(await this.codes.consumeCode(live.id, now))) throw invalidResetCode();
    await this.#setPassword(user.userUuid, newPassword);
  }

  /** Changes the password after checking the current one; every login JWT of the user stops working. */
  async change(userUuid: number, currentPassword: string, newPassword: string): Promise<void> {
    checkPassword(newPassword);
    const user = await this.users.findById(userUuid);
    const ok = await this.passwords.verify(
      currentPassword.slice(0, MAX_PASSWORD_LENGTH),
      user?.passwordHash ?? (await this.passwords.dummyHash()),
    );
    if (!user || !ok) throw new AppError(401, 'invalid_credentials', 'The current password is wrong');
    await this.#setPassword(userUuid, newPassword);
  }

  /**
   * Login JWTs carry `iat` in whole seconds, so the cutoff is the next second boundary: every token issued
   * up to now is void, and the answer waits for that boundary so that a sign-in after it is not.
   */
  async #setPassword(userUuid: number, newPassword: string): Promise<void> {
    const hash = await this.passwords.hash(newPassword);
    const cutoff = Math.floor(Date.now() / 1000) + 1;
    await this.users.setPassword(userUuid, hash, cutoff);
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
