import { createHmac, randomInt, randomUUID, type KeyObject } from 'node:crypto';
import { deriveHmacKey } from '../../crypto/derivedKey.js';
import type { Logger } from 'pino';
import { safeEqual } from '../../crypto/constantTime.js';
import { AppError } from '../../errors.js';
import type { UserStore } from '../../stores/userStore.js';
import type { VerificationStore } from '../../stores/verificationStore.js';
import { normaliseEmail } from '../accounts/accountService.js';
import type { Mailer } from '../mail/mailer.js';
import { mailBody, mailTranslator, originLines } from '../mail/mailText.js';
import { networkOf } from '../network/ipAddresses.js';
import type { RequestContext } from '../security/requestContext.js';
import type { BotChallengeService, SingleUseMarks } from './botChallenge.js';

/** The e-mail codes' purpose and their one "session" (the code belongs to the account, not to a sign-in). */
const PURPOSE = 'login_unlock';
const SESSION = 'login';

/** How long a mailed code works, and how many wrong guesses it takes before it dies. */
export const UNLOCK_CODE_TTL_MS = 30 * 60_000;
export const MAX_UNLOCK_ATTEMPTS = 5;
/** Mails per account: a new code only when no usable one is live, at most one a minute and five an hour. */
export const UNLOCK_RESEND_MS = 60_000;
export const MAX_UNLOCK_MAILS_PER_HOUR = 5;

/** What a refused sign-in of an account under guessing may carry instead (decisions §9). */
export const GUESSING_METHODS = ['altcha', 'email_code'] as const;

export const guessingChallenge = (message: string) =>
  new AppError(401, 'challenge_required', message, { methods: [...GUESSING_METHODS] });

/** What a sign-in attempt of an account under guessing brought besides the password. */
export interface GuessingProof {
  altcha?: string | undefined;
  emailCode?: string | undefined;
  /** True when this request's ALTCHA solution was already verified and spent (the `login` bot challenge). */
  solved?: boolean;
}

/**
 * The account-level guessing defense (decisions §9, docs/security.md "Password guessing against one
 * account"). Once an account has had 10 failed sign-ins in 15 minutes (counted by the HTTP layer in the
 * rate limiter's store, so every replica counts together), every sign-in of it, the right password
 * included, must also bring an ALTCHA solution or the code mailed to the owner, else 401
 * `challenge_required` `{methods}`. The first refusal mails the owner a code (8 digits, 30 minutes, 5
 * guesses), so the right person always has a way in; the answer is the same whether or not the
 * account exists, and the mail goes out in the background.
 */
export class LoginDefenseService {
  readonly #codeKey: KeyObject;

  constructor(
    private readonly users: UserStore,
    private readonly codes: VerificationStore,
    private readonly mailer: Mailer,
    masterKey: Buffer,
    private readonly challenges: BotChallengeService,
    /** One mail per account and resend interval, whichever replica refuses first (Redis or the database). */
    private readonly marks: SingleUseMarks,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.#codeKey = deriveHmacKey(masterKey, 'login-unlock/v1');
  }

  /**
   * Lets a sign-in of an account under guessing go on to its password check, or refuses it. Returns what
   * to call once the password proved right (it spends the mailed code); throws 401 `challenge_required`.
   */
  async admit(
    emailInput: string,
    proof: GuessingProof,
    context: RequestContext,
  ): Promise<() => Promise<void>> {
    const nothing = async () => {};
    if (proof.solved) return nothing;
    if (proof.altcha !== undefined && proof.altcha !== '' && (await this.challenges.verify(proof.altcha))) {
      return nothing;
    }
    const email = normaliseEmail(emailInput);
    if (proof.emailCode !== undefined && proof.emailCode !== '') {
      const spend = await this.#checkCode(email, proof.emailCode.trim());
      if (spend) return spend;
      throw guessingChallenge(
        'The e-mailed code is wrong, expired or used up: use the newest code mailed to the account, or solve a challenge',
      );
    }
    // In the background, so the answer's timing does not tell whether the account exists.
    void this.#mailCode(email, context).catch((err: unknown) =>
      this.logger.warn({ err: (err as Error).message }, 'sign-in unlock mail not sent'),
    );
    throw guessingChallenge(
      'Too many failed sign-ins for this account: send a solved challenge (`altcha`) or the code e-mailed to its owner (`email_code`) with the password',
    );
  }

  /** A right guess of the live code (counted first) yields its spender; a wrong one undefined. */
  async #checkCode(email: string, code: string): Promise<(() => Promise<void>) | undefined> {
    if (!/^\d{8}$/.test(code)) return undefined;
    const user = await this.users.findByEmail(email);
    if (!user) return undefined;
    const now = this.now();
    const live = await this.codes.liveCode(user.userUuid, PURPOSE, SESSION, now);
    if (!live) return undefined;
    // The guess counts before the comparison, so parallel guesses cannot exceed the bound.
    if (!(await this.codes.reserveCodeAttempt(live.id, MAX_UNLOCK_ATTEMPTS, now))) return undefined;
    if (!safeEqual(this.#hash(live.id, code), live.codeHash)) return undefined;
    // Spent only once the password proved right too: a typo in the password does not cost the code.
    return async () => void (await this.codes.consumeCode(live.id, this.now()));
  }

  async #mailCode(email: string, context: RequestContext): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user?.email) return;
    const now = this.now();
    const live = await this.codes.liveCode(user.userUuid, PURPOSE, SESSION, now);
    if (live && live.attempts < MAX_UNLOCK_ATTEMPTS) return;
    const sent = await this.codes.codesSentSince(user.userUuid, PURPOSE, now - 3_600_000, SESSION);
    if (sent[0] !== undefined && now - sent[0] < UNLOCK_RESEND_MS) return;
    if (sent.length >= MAX_UNLOCK_MAILS_PER_HOUR) return;
    // Refusals race on every replica: one of them mails (a second code would retire the first one's).
    if (!(await this.marks.claimOnce(`login_unlock:${user.userUuid}`, UNLOCK_RESEND_MS))) return;
    const code = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const id = randomUUID();
    await this.codes.insertCode({
      id,
      userUuid: user.userUuid,
      purpose: PURPOSE,
      codeHash: this.#hash(id, code),
      expiresAt: now + UNLOCK_CODE_TTL_MS,
      createdAt: now,
      sessionId: SESSION,
    });
    const network = context.ip === undefined ? undefined : networkOf(context.ip);
    const agent = context.userAgent?.replace(/[\p{Cc}\p{Cf}]/gu, ' ').slice(0, 200);
    const tr = mailTranslator(user.locale);
    await this.mailer.send({
      to: user.email,
      language: tr.locale,
      subject: tr.t('mail.guessing.subject'),
      text: mailBody([
        tr.t('mail.guessing.intro'),
        '',
        tr.t('mail.guessing.code', { code }),
        '',
        tr.t('mail.guessing.validity', { minutes: UNLOCK_CODE_TTL_MS / 60_000 }),
        '',
        ...originLines(tr, { at: now, network, device: agent }, 'mail.lastNetwork'),
        '',
        tr.t('mail.guessing.notYou'),
        tr.t('mail.guessing.weak'),
      ]),
    });
  }

  #hash(id: string, code: string): string {
    return createHmac('sha256', this.#codeKey).update(`${id}:${code}`, 'utf8').digest('hex');
  }
}
