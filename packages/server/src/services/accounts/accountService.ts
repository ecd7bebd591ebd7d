import { randomInt } from 'node:crypto';
import type { PasswordHasher } from '../../crypto/passwordHasher.js';
import { AppError, conflict, invalidField } from '../../errors.js';
import { isSupportedLocale, type Locale, SUPPORTED_LOCALES } from '../../i18n/locales.js';
import type { User, UserStore } from '../../stores/userStore.js';
import { type SecondFactorGate, type SignIn, singleFactor } from '../mfa/signIn.js';
import type { PasswordStrength } from '../defense/passwordStrength.js';
import type { TokenService } from '../tokens/tokenService.js';

export const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 1024;

/** Normalises e-mail for uniqueness: case-insensitive, surrounding spaces ignored. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** Random positive ids below 2^53 (decisions §3): unguessable, and exact in every JSON parser. */
export function newUserUuid(): number {
  return randomInt(1_000_000_000, 2 ** 48);
}

/** A user as services hand it out: the password hash left behind. */
const withoutPassword = (user: User): User => ({
  userUuid: user.userUuid,
  email: user.email,
  nickname: user.nickname,
  createdAt: user.createdAt,
  locale: user.locale,
});

/**
 * A language a client names (`locale` of the sign-up API and of `PUT /v1/dev-user/account/locale`): one of
 * SUPPORTED_LOCALES exactly, else 400 `invalid_request` with `field: locale`.
 */
export function checkedLocale(value: unknown): Locale {
  if (!isSupportedLocale(value)) {
    throw invalidField('locale', `locale must be one of ${SUPPORTED_LOCALES.join(', ')}`);
  }
  return value;
}

/** The normalised e-mail, after checking it and the password's length (400 otherwise). */
export function checkedCredentials(emailInput: string, password: string): string {
  const email = normaliseEmail(emailInput);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 320) {
    throw new AppError(400, 'invalid_request', 'email is not a valid e-mail address', { field: 'email' });
  }
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new AppError(
      400,
      'weak_password',
      `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`,
      { field: 'password' },
    );
  }
  return email;
}

/** The nickname given, else the e-mail's local part. */
export const nicknameFor = (email: string, nickname: string | undefined): string =>
  (nickname ?? email.split('@')[0] ?? 'user').trim().slice(0, 100) || 'user';

/** Pre-generated players' side of a sign-up (`PregenerationService`). */
export interface PregeneratedSignups {
  claimForSignup(
    email: string,
    account: { passwordHash: string; nickname: string },
  ): Promise<number | undefined>;
}

export class AccountService {
  #secondFactor: SecondFactorGate;

  constructor(
    private readonly users: UserStore,
    private readonly tokens: TokenService,
    private readonly passwords: PasswordHasher,
    /** Mails the new account a code and a link that verify its address (absent offline: the CLI mails nothing). */
    private readonly signupMail?: { sendAfterSignup(user: User): Promise<void> },
    /** Refuses weak new passwords (absent offline: the operator's CLI sets what it is given). */
    private readonly strength?: PasswordStrength,
  ) {
    this.#secondFactor = singleFactor(tokens);
  }

  #pregenerated: PregeneratedSignups | undefined;

  /** Sign-ups with an e-mail a studio pre-generated an account for go to that account (docs/players.md). */
  usePregeneratedPlayers(pregenerated: PregeneratedSignups): void {
    this.#pregenerated = pregenerated;
  }

  /** Where a password sign-in goes after the password (docs/mfa.md): an account with TOTP gets an `mfa_token`. */
  useSecondFactor(gate: SecondFactorGate): void {
    this.#secondFactor = gate;
  }

  /**
   * A new account with e-mail and password; `locale` is the language it signed up in (the page's, the API's
   * `locale` or `Accept-Language`), the language of its mails (docs/account.md "Language").
   */
  async register(input: {
    email: string;
    password: string;
    nickname?: string | undefined;
    locale?: Locale | undefined;
  }): Promise<User> {
    const email = checkedCredentials(input.email, input.password);
    await this.strength?.check(input.password, [email, input.nickname]);
    if (await this.users.emailTaken(email))
      throw conflict('email_taken', 'An account with this e-mail already exists');
    const passwordHash = await this.passwords.hash(input.password);
    const nickname = nicknameFor(email, input.nickname);
    // A studio pre-generated an account for this address: it takes the e-mail and password, but opens to
    // no sign-in until the mailbox is proved (the sign-up mail's link, or a password reset).
    const { locale } = input;
    const waiting = await this.#pregenerated?.claimForSignup(email, { passwordHash, nickname });
    if (waiting !== undefined) {
      if (locale !== undefined) await this.users.setLocale(waiting, locale);
      const claimed = { userUuid: waiting, email, nickname, createdAt: Date.now(), locale };
      await this.signupMail?.sendAfterSignup(claimed);
      return claimed;
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      const user = { userUuid: newUserUuid(), email, nickname, createdAt: Date.now(), passwordHash, locale };
      if (await this.users.insert(user)) {
        const created = { userUuid: user.userUuid, email, nickname, createdAt: user.createdAt, locale };
        await this.signupMail?.sendAfterSignup(created);
        return created;
      }
      // The insert lost: either the e-mail was registered concurrently or the random id collided.
      if (await this.users.emailTaken(email))
        throw conflict('email_taken', 'An account with this e-mail already exists');
    }
    throw new AppError(500, 'internal_error', 'Could not allocate a user id');
  }

  /** Checks the credentials in time independent of whether the e-mail exists. */
  async authenticate(emailInput: string, password: string): Promise<User> {
    const user = await this.users.findByEmail(normaliseEmail(emailInput));
    const candidate = password.slice(0, MAX_PASSWORD_LENGTH);
    const ok = await this.passwords.verify(
      candidate,
      user?.passwordHash ?? (await this.passwords.dummyHash()),
    );
    if (!user || !ok) throw new AppError(401, 'invalid_credentials', 'E-mail or password is wrong');
    await this.users.notePasswordUse(user.userUuid, Date.now());
    if (this.passwords.needsRehash(user.passwordHash)) {
      // Transparent upgrade to the current scrypt parameters, the only moment the password is known.
      // Conditional on the old hash, so a password changed meanwhile is never overwritten.
      // Best effort: a busy queue or a database hiccup leaves it for the next sign-in.
      try {
        const upgraded = await this.passwords.hash(candidate);
        await this.users.replacePasswordHash(user.userUuid, user.passwordHash, upgraded);
      } catch {
        /* the sign-in itself succeeded */
      }
    }
    return { userUuid: user.userUuid, email: user.email, nickname: user.nickname, createdAt: user.createdAt };
  }

  /**
   * Developer login (spec endpoint 1): credentials in, a login JWT out (`amr: ["pwd"]`); bound to
   * `binding.clientId` (its `azp`) when given — the caller has checked that the app exists
   * (`loginBindingFor`). An account with a second factor gets an `mfa_token` for it instead (docs/mfa.md);
   * a wrong password answers the same whether or not the account has one.
   */
  async login(email: string, password: string, binding: { clientId?: string } = {}): Promise<SignIn> {
    const user = await this.authenticate(email, password);
    return this.#secondFactor.signIn({
      userUuid: user.userUuid,
      authTime: Math.floor(Date.now() / 1000),
      amr: ['pwd'],
      clientId: binding.clientId,
    });
  }

  /** Whether the account has a password and when it was last proved (the Security page). */
  passwordUse(userUuid: number): Promise<{ set: boolean; lastUsedAt: number | undefined }> {
    return this.users.passwordUse(userUuid);
  }

  /** The account registered with `email` (compared normalised, as at registration). */
  async findUserByEmail(email: string): Promise<User | undefined> {
    const user = await this.users.findByEmail(normaliseEmail(email));
    return user && withoutPassword(user);
  }

  async findUser(userUuid: number): Promise<User | undefined> {
    const user = await this.users.findById(userUuid);
    return user && withoutPassword(user);
  }

  /**
   * Changes the language of the account's mails (`PUT /v1/dev-user/account/locale`): one of
   * SUPPORTED_LOCALES, else 400 with nothing changed; 401 when the account is gone.
   */
  async setLocale(userUuid: number, value: unknown): Promise<Locale> {
    const locale = checkedLocale(value);
    if (!(await this.users.setLocale(userUuid, locale))) {
      throw new AppError(401, 'invalid_token', 'The token names no user');
    }
    return locale;
  }
}
