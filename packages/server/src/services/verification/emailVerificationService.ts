import { createHash, createHmac, randomBytes, randomInt, randomUUID, type KeyObject } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import { safeEqual } from '../../crypto/constantTime.js';
import { AppError } from '../../errors.js';
import type { UserStore } from '../../stores/userStore.js';
import type { VerificationStore } from '../../stores/verificationStore.js';
import type { MessageKey } from '../../i18n/catalogues/index.js';
import type { Mailer } from '../mail/mailer.js';
import { mailBody, mailTranslator } from '../mail/mailText.js';

/** What a verification can be for; each token is bound to one purpose and one user. */
export const VERIFICATION_PURPOSES = ['pin_recover'] as const;
export type VerificationPurpose = (typeof VERIFICATION_PURPOSES)[number];

export const CODE_TTL_MS = 10 * 60_000;
export const TOKEN_TTL_MS = 10 * 60_000;
/** Wrong guesses allowed against one code before a new one must be requested. */
export const MAX_CODE_ATTEMPTS = 5;
/** At most one code per minute, and five per hour, per login session (JWT) and purpose … */
export const RESEND_INTERVAL_MS = 60_000;
export const MAX_CODES_PER_HOUR = 5;
/** … and twenty per hour per user and purpose over all sessions (bounds mail sent to one mailbox). */
export const MAX_CODES_PER_USER_PER_HOUR = 20;

/** What the mail says the code is for, and within how long (`{minutes}`). */
const PURPOSE_TEXT: Record<VerificationPurpose, MessageKey> = {
  pin_recover: 'mail.code.pinRecover',
};

export const invalidVerificationToken = () =>
  new AppError(
    401,
    'invalid_verification_token',
    'The verification token is unknown, expired, already used, or for another user or purpose',
  );

/**
 * E-mail verification: a 6-digit code mailed to the account's address, exchanged once for a
 * short-lived, single-use verification token bound to the user and the purpose. Codes are stored
 * as HMAC-SHA256 under a key derived from MASTER_KEY (10^6 codes would be trivial to brute-force
 * from a plain hash); tokens (256 random bits) as SHA-256.
 */
export class EmailVerificationService {
  readonly #codeKey: KeyObject;

  constructor(
    private readonly store: VerificationStore,
    private readonly users: UserStore,
    private readonly mailer: Mailer,
    masterKey: Buffer,
  ) {
    this.#codeKey = deriveHmacKey(masterKey, 'email-code/v1');
  }

  /**
   * Mails a fresh code (superseding the session's earlier ones). 429 when asked too often. Codes and their
   * limits belong to the login session (`sessionId`, the JWT's jti) that asks, so another holder of a login
   * JWT of the user (an app backend it was relayed to) cannot supersede, guess away or use up the code the
   * user asked for; only the per-user cap is shared.
   */
  async sendCode(
    userUuid: number,
    purpose: VerificationPurpose,
    sessionId: string,
  ): Promise<{ expiresIn: number }> {
    const user = await this.users.findById(userUuid);
    if (!user) throw new AppError(401, 'invalid_token', 'The token names no user');
    // A guest or passkey-only account has no address: its PIN is recovered by mnemonic only.
    if (user.email === null) {
      throw new AppError(
        409,
        'no_email',
        'This account has no e-mail address: recover the PIN with its mnemonic (docs/players.md)',
      );
    }
    const to = user.email;
    const tr = mailTranslator(user.locale);
    const now = Date.now();
    const recent = await this.store.codesSentSince(userUuid, purpose, now - 3_600_000, sessionId);
    const last = recent[0];
    if (last !== undefined && now - last < RESEND_INTERVAL_MS) {
      throw rateLimited(
        Math.ceil((last + RESEND_INTERVAL_MS - now) / 1000),
        'A code was sent less than a minute ago',
      );
    }
    if (recent.length >= MAX_CODES_PER_HOUR) {
      const oldest = recent[recent.length - 1]!;
      throw rateLimited(
        Math.ceil((oldest + 3_600_000 - now) / 1000),
        'Too many codes were sent in the last hour',
      );
    }
    const everySession = await this.store.codesSentSince(userUuid, purpose, now - 3_600_000);
    if (everySession.length >= MAX_CODES_PER_USER_PER_HOUR) {
      const oldest = everySession[everySession.length - 1]!;
      throw rateLimited(
        Math.ceil((oldest + 3_600_000 - now) / 1000),
        'Too many codes were sent to this account in the last hour',
      );
    }
    await this.store.deleteExpired(now - 24 * 3_600_000);

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = randomUUID();
    await this.store.insertCode({
      id,
      userUuid,
      purpose,
      codeHash: this.#hashCode(id, code),
      expiresAt: now + CODE_TTL_MS,
      createdAt: now,
      sessionId,
    });
    try {
      await this.mailer.send({
        to,
        language: tr.locale,
        subject: tr.t('mail.code.subject'),
        text: mailBody([
          tr.t('mail.code.code', { code }),
          '',
          tr.t(PURPOSE_TEXT[purpose], { minutes: CODE_TTL_MS / 60_000 }),
          tr.t('mail.code.notYou'),
        ]),
      });
    } catch {
      // An unsent code must not stay usable (nor keep the user waiting for the resend interval in vain).
      await this.store.consumeCode(id, Date.now());
      throw new AppError(
        503,
        'mail_unavailable',
        'The verification e-mail could not be sent; try again later',
      );
    }
    return { expiresIn: CODE_TTL_MS / 1000 };
  }

  /**
   * Checks a code against the live code of the same session; the right one yields a verification token
   * (10 minutes, single use).
   */
  async verifyCode(
    userUuid: number,
    purpose: VerificationPurpose,
    code: string,
    sessionId: string,
  ): Promise<{ verificationToken: string; expiresIn: number }> {
    const now = Date.now();
    await spendCode(
      this.store,
      { userUuid, purpose, sessionId, code, maxAttempts: MAX_CODE_ATTEMPTS, now },
      (id) => this.#hashCode(id, code),
    );
    const token = randomBytes(32).toString('base64url');
    await this.store.insertToken({
      tokenHash: hashToken(token),
      userUuid,
      purpose,
      expiresAt: now + TOKEN_TTL_MS,
      createdAt: now,
    });
    return { verificationToken: token, expiresIn: TOKEN_TTL_MS / 1000 };
  }

  /** Checks a verification token without using it; 401 `invalid_verification_token` if unusable. */
  async checkToken(userUuid: number, purpose: VerificationPurpose, token: string): Promise<void> {
    if (!(await this.store.tokenUsable(hashToken(token), userUuid, purpose, Date.now()))) {
      throw invalidVerificationToken();
    }
  }

  /** Uses a verification token once; 401 `invalid_verification_token` otherwise. */
  async consumeToken(userUuid: number, purpose: VerificationPurpose, token: string): Promise<void> {
    if (!(await this.store.consumeToken(hashToken(token), userUuid, purpose, Date.now()))) {
      throw invalidVerificationToken();
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

/**
 * Spends one guess at a mailed code of (user, purpose, session): 400 `code_expired` when none is live, 429
 * `too_many_attempts` past `maxAttempts` (the guess is counted before comparing, so parallel guesses cannot
 * exceed the limit), 400 `invalid_code` with `attempts_remaining` for a wrong one; a right one is consumed
 * once (a concurrent second use finds it gone).
 */
export async function spendCode(
  store: Pick<VerificationStore, 'liveCode' | 'reserveCodeAttempt' | 'consumeCode'>,
  guess: {
    userUuid: number;
    purpose: string;
    sessionId: string;
    code: string;
    maxAttempts: number;
    now: number;
  },
  hashCode: (codeId: string) => string,
): Promise<void> {
  const { userUuid, purpose, sessionId, maxAttempts, now } = guess;
  const live = await store.liveCode(userUuid, purpose, sessionId, now);
  if (!live) {
    throw new AppError(
      400,
      'code_expired',
      'There is no valid code: it expired or was used; request a new one',
    );
  }
  if (!(await store.reserveCodeAttempt(live.id, maxAttempts, now))) {
    throw new AppError(429, 'too_many_attempts', 'Too many wrong codes; request a new one');
  }
  if (!safeEqual(hashCode(live.id), live.codeHash)) {
    const remaining = Math.max(0, maxAttempts - live.attempts - 1);
    throw new AppError(400, 'invalid_code', 'The code is wrong', { attempts_remaining: remaining });
  }
  if (!(await store.consumeCode(live.id, now))) {
    throw new AppError(400, 'code_expired', 'The code was already used; request a new one');
  }
}
