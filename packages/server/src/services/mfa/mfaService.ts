import { createHmac, createSecretKey, type KeyObject, randomBytes, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { SecretBox } from '../../crypto/secretBox.js';
import type { KeyedFingerprint } from '../../crypto/keyedFingerprint.js';
import { AppError, conflict, notFound } from '../../errors.js';
import type { CodeUse, MfaStore, TotpRecord } from '../../stores/mfaStore.js';
import type { TokenService } from '../tokens/tokenService.js';
import {
  type Amr,
  type FirstFactor,
  issueSignIn,
  type MfaMethod,
  type SecondFactorGate,
  type SignIn,
} from './signIn.js';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** A code of the step before or after the server's is accepted too (clock drift). */
const TOTP_WINDOW = 1;
/** 160-bit secrets, the size RFC 4226 recommends. */
const TOTP_SECRET_BYTES = 20;
export const RECOVERY_CODE_COUNT = 10;
/** How long a sign-in waits for its second step, and how many codes it may try. */
export const MFA_TOKEN_TTL_SECONDS = 300;
export const MFA_MAX_ATTEMPTS = 5;
/** A pending (unconfirmed) secret is good for this long: after it, confirmation needs a new one. */
export const TOTP_PENDING_TTL_MS = 10 * 60_000;

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const SEAL_AAD = (userUuid: number) => `totp_secret:${userUuid}`;
const METHODS: MfaMethod[] = ['totp', 'recovery_code'];

/** 400 `invalid_mfa_code` (confirm, remove) or 401 (the sign-in's second step): the code was not accepted. */
export const invalidMfaCode = (status: 400 | 401, details?: Record<string, unknown>) =>
  new AppError(
    status,
    'invalid_mfa_code',
    'The code is wrong, expired or already used: enter the current code of your authenticator app or an unused recovery code',
    details,
  );

const invalidMfaToken = () =>
  new AppError(
    401,
    'invalid_mfa_token',
    `The mfa_token is unknown, expired (${MFA_TOKEN_TTL_SECONDS / 60} minutes), already used, or ended after ${MFA_MAX_ATTEMPTS} codes: sign in again`,
  );

const enrolmentChanged = () =>
  conflict('totp_enrolment_changed', 'The enrolment changed meanwhile: start it again');

const totpNotEnabled = () => notFound('totp_not_enabled', 'This account has no TOTP second factor');

/** Wrong second-step codes counted per account (`login_mfa_account`, the HTTP layer's rate-limit store). */
export interface WrongCodeGuard {
  /** Throws (429) once the account has used up its wrong codes. */
  check(userUuid: number): Promise<void>;
  wrong(userUuid: number): Promise<void>;
}

export interface MfaStatus {
  totp: boolean;
  recoveryCodesLeft: number;
}

/**
 * Second factors (decisions §9, docs/mfa.md): TOTP enrolment, confirmation with recovery codes, removal,
 * and the second step of a sign-in. Each TOTP code is accepted once (the account's last accepted step only
 * grows), each recovery code once, each `mfa_token` once and for at most `MFA_MAX_ATTEMPTS` codes. As the
 * sign-in gate (`SecondFactorGate`), it answers a first step of an account with TOTP with an `mfa_token`
 * instead of a login JWT.
 */
export class MfaService implements SecondFactorGate {
  constructor(
    private readonly store: MfaStore,
    private readonly tokens: TokenService,
    private readonly secretBox: SecretBox,
    /** HMAC of recovery codes (context: the user) and of `mfa_token`s, under a MASTER_KEY-derived key. */
    private readonly fingerprint: KeyedFingerprint,
    private readonly settings: { issuer: string },
    private readonly now: () => number = Date.now,
  ) {}

  async status(userUuid: number): Promise<MfaStatus> {
    const totp = await this.store.findTotp(userUuid);
    const confirmed = totp?.confirmed === true;
    return {
      totp: confirmed,
      recoveryCodesLeft: confirmed ? (await this.store.unusedRecoveryCodes(userUuid)).length : 0,
    };
  }

  /** A new pending secret (replacing a pending one): its base32 and `otpauth://` URI. 409 once confirmed. */
  async enrol(userUuid: number, label: string): Promise<{ secret: string; otpauthUri: string }> {
    const { secret, otpauthUri } = await this.#newPending(userUuid, label);
    return { secret, otpauthUri };
  }

  async #newPending(userUuid: number, label: string) {
    const secret = new Secret({ size: TOTP_SECRET_BYTES });
    const sealed = this.secretBox.seal(secret.base32, SEAL_AAD(userUuid));
    if (!(await this.store.savePending(userUuid, sealed, this.now()))) {
      throw conflict(
        'totp_already_enabled',
        'TOTP is already on: remove it (with a code) before enrolling again',
      );
    }
    const totp = this.#totp(secret, label);
    return { secret: secret.base32, otpauthUri: totp.toString(), sealed };
  }

  /**
   * Confirms the pending secret with a code of it; the 10 recovery codes, shown once. `marker`: the login
   * page's enrolment confirms only the secret it showed (`pendingEnrolment`); another one (made meanwhile
   * elsewhere) → 409 `totp_enrolment_changed`. A pending secret older than 10 minutes → 404 `totp_not_pending`.
   */
  async confirm(userUuid: number, code: string, marker?: string): Promise<string[]> {
    const record = await this.store.findTotp(userUuid);
    if (record?.confirmed) throw conflict('totp_already_enabled', 'TOTP is already on');
    if (!record || this.#expired(record)) {
      throw notFound(
        'totp_not_pending',
        `Start the enrolment first (POST /v1/dev-user/mfa/totp); a pending secret lasts ${TOTP_PENDING_TTL_MS / 60_000} minutes`,
      );
    }
    if (marker !== undefined && !this.#marks(record, marker)) throw enrolmentChanged();
    const step = this.#matchingStep(record.secretSealed, userUuid, code);
    if (step === undefined) throw invalidMfaCode(400);
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    const hashes = codes.map((c) => this.#recoveryHash(userUuid, c));
    if (!(await this.store.confirm(userUuid, record.secretSealed, step, hashes, this.now()))) {
      // A concurrent enrolment replaced the secret this code was of (or a concurrent confirm won).
      throw enrolmentChanged();
    }
    return codes;
  }

  /** Removes TOTP and the recovery codes, proved by a TOTP or recovery code. */
  async remove(userUuid: number, code: string): Promise<void> {
    const record = await this.store.findTotp(userUuid);
    if (!record?.confirmed) throw totpNotEnabled();
    if ((await this.#use(userUuid, record.secretSealed, code)) !== 'accepted') throw invalidMfaCode(400);
    await this.store.removeTotp(userUuid);
  }

  /** Whether the account has a confirmed TOTP (the login page's second step, or its enrolment). */
  async hasTotp(userUuid: number): Promise<boolean> {
    return (await this.store.findTotp(userUuid))?.confirmed === true;
  }

  /**
   * The enrolment the login page shows (an app or `acr_values` asks for two factors and the account has
   * none): the `otpauth://` URI and the marker the page's form carries back. The pending secret is shown
   * again only to the form that carries its marker (a wrong code re-renders it, so a scanned code stays
   * good); any other visit gets a new pending secret, replacing whichever was waiting, so a secret made
   * elsewhere (another browser with the password) is never shown here. 409 `totp_already_enabled` once
   * confirmed.
   */
  async pendingEnrolment(
    userUuid: number,
    label: string,
    marker?: string,
  ): Promise<{ otpauthUri: string; marker: string }> {
    const record = await this.store.findTotp(userUuid);
    if (record?.confirmed) throw conflict('totp_already_enabled', 'TOTP is already on');
    if (!record || marker === undefined || this.#expired(record) || !this.#marks(record, marker)) {
      const { otpauthUri, sealed } = await this.#newPending(userUuid, label);
      return { otpauthUri, marker: this.#markerOf(userUuid, sealed) };
    }
    const opened = this.secretBox.open(record.secretSealed, SEAL_AAD(userUuid));
    try {
      const totp = this.#totp(Secret.fromBase32(opened.toString('utf8')), label);
      return { otpauthUri: totp.toString(), marker };
    } finally {
      opened.fill(0);
    }
  }

  /** The page's marker of a pending secret: an HMAC of its sealed form (random per secret) under a server key. */
  #markerOf(userUuid: number, secretSealed: string): string {
    return this.fingerprint.of(enrolContext(userUuid), Buffer.from(secretSealed, 'utf8'));
  }

  #marks(record: TotpRecord, marker: string): boolean {
    return this.fingerprint.matches(
      marker,
      enrolContext(record.userUuid),
      Buffer.from(record.secretSealed, 'utf8'),
    );
  }

  #expired(record: TotpRecord): boolean {
    return !record.confirmed && this.now() - record.createdAt > TOTP_PENDING_TTL_MS;
  }

  /** The sign-in gate: the login JWT, or an `mfa_token` when the account has TOTP on. */
  async signIn(first: FirstFactor): Promise<SignIn> {
    const second = await this.startSecondStep(first);
    if (!second) return issueSignIn(this.tokens, first);
    return {
      mfaRequired: true,
      mfaToken: second.mfaToken,
      methods: METHODS,
      expiresIn: MFA_TOKEN_TTL_SECONDS,
    };
  }

  /**
   * A sign-in's first step is done: for an account with TOTP on, the `mfa_token` of its second step (the
   * JSON routes answer it, the login and device pages keep it in a cookie); undefined without TOTP.
   */
  async startSecondStep(first: FirstFactor): Promise<{ mfaToken: string } | undefined> {
    if (!(await this.hasTotp(first.userUuid))) return undefined;
    const mfaToken = randomBytes(32).toString('base64url');
    const now = this.now();
    await this.store.savePendingSignIn(
      this.#tokenHash(mfaToken),
      { userUuid: first.userUuid, clientId: first.clientId, authTime: first.authTime, amr: [...first.amr] },
      now + MFA_TOKEN_TTL_SECONDS * 1000,
      now,
    );
    return { mfaToken };
  }

  /**
   * The second step (`POST /v1/dev-user/login/mfa`): a TOTP or recovery code for the `mfa_token`'s sign-in.
   * The login JWT keeps the first step's binding and `auth_time`; its `amr` adds `otp` and `mfa`.
   */
  async completeSignIn(
    mfaToken: string,
    code: string,
    guard?: WrongCodeGuard,
  ): Promise<{ token: string; uuid: string; expiresIn: number }> {
    const signIn = await issueSignIn(
      this.tokens,
      await this.verifySecondStep(mfaToken, code, undefined, guard),
    );
    if (signIn.mfaRequired) throw new Error('issueSignIn never asks for a second factor');
    return { token: signIn.token, uuid: signIn.uuid, expiresIn: signIn.expiresIn };
  }

  /**
   * The one check of every second step (the JSON route, the login and device pages): counts the attempt,
   * accepts the code once, ends the `mfa_token`, and answers the sign-in it proved (the first step's
   * user, binding and `auth_time`, its `amr` with `otp` and `mfa`). `bind`: the page's flow the token must
   * have been started for (another flow's token is refused like an unknown one, its attempt counted).
   */
  async verifySecondStep(
    mfaToken: string,
    code: string,
    bind?: { clientId: string | undefined },
    guard?: WrongCodeGuard,
  ): Promise<FirstFactor & { amr: Amr[] }> {
    const result = await this.trySecondStep(mfaToken, code, bind, guard);
    if ('attemptsLeft' in result) throw invalidMfaCode(401);
    return result;
  }

  /**
   * `verifySecondStep` for the pages, which end the step at the fifth wrong code rather than one later:
   * a wrong code answers how many codes the token has left (401 `invalid_mfa_token` when it is dead).
   */
  async trySecondStep(
    mfaToken: string,
    code: string,
    bind?: { clientId: string | undefined },
    guard?: WrongCodeGuard,
  ): Promise<(FirstFactor & { amr: Amr[] }) | { attemptsLeft: number }> {
    const tokenHash = this.#tokenHash(mfaToken);
    const pending = await this.store.attemptSignIn(tokenHash, MFA_MAX_ATTEMPTS, this.now());
    if (!pending) throw invalidMfaToken();
    if (bind && bind.clientId !== pending.clientId) throw invalidMfaToken();
    // The account's wrong codes across all its mfa_tokens: past the limit, no code is checked (429).
    await guard?.check(pending.userUuid);
    const totp = await this.store.findTotp(pending.userUuid);
    if (!totp?.confirmed) throw invalidMfaToken();
    const use = await this.#use(pending.userUuid, totp.secretSealed, code, tokenHash);
    if (use === 'refused') {
      await guard?.wrong(pending.userUuid);
      return { attemptsLeft: Math.max(0, MFA_MAX_ATTEMPTS - (pending.attempts ?? MFA_MAX_ATTEMPTS)) };
    }
    if (use === 'ended_elsewhere') throw invalidMfaToken();
    return {
      userUuid: pending.userUuid,
      authTime: pending.authTime,
      amr: [...new Set<Amr>([...(pending.amr as Amr[]), 'otp', 'mfa'])],
      clientId: pending.clientId,
    };
  }

  /**
   * A TOTP code (6 digits) of a step after the last accepted one, or an unused recovery code, used up, and
   * the sign-in `endSignIn` (an `mfa_token`'s hash) ended with it, in one commit.
   */
  async #use(userUuid: number, secretSealed: string, code: string, endSignIn?: string): Promise<CodeUse> {
    const digits = code.replace(/\s/g, '');
    if (/^\d{6}$/.test(digits)) {
      const step = this.#matchingStep(secretSealed, userUuid, digits);
      return step === undefined ? 'refused' : this.store.acceptStep(userUuid, step, endSignIn);
    }
    // The code's hash, made once, is compared in constant time with every unused one, whichever matches.
    const match = this.fingerprint.matchOf(
      await this.store.unusedRecoveryCodes(userUuid),
      recoveryContext(userUuid),
      normaliseRecoveryCode(code),
    );
    return match === undefined
      ? 'refused'
      : this.store.useRecoveryCode(userUuid, match, this.now(), endSignIn);
  }

  /** The time step `code` is of, within ±`TOTP_WINDOW` of now; undefined when it is of none. */
  #matchingStep(secretSealed: string, userUuid: number, code: string): number | undefined {
    const digits = code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(digits)) return undefined;
    const opened = this.secretBox.open(secretSealed, SEAL_AAD(userUuid));
    try {
      const secret = Secret.fromBase32(opened.toString('utf8'));
      const totp = this.#totp(secret, '', keyedHmac(createSecretKey(secret.bytes)));
      const timestamp = this.now();
      const delta = totp.validate({ token: digits, timestamp, window: TOTP_WINDOW });
      return delta === null ? undefined : totp.counter({ timestamp }) + delta;
    } finally {
      opened.fill(0);
    }
  }

  #totp(secret: Secret, label: string, hmac?: TotpHmac): TOTP {
    return new TOTP({
      issuer: this.settings.issuer,
      label,
      secret,
      algorithm: 'SHA1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
      ...(hmac ? { hmac } : {}),
    });
  }

  #recoveryHash(userUuid: number, code: string): string {
    return this.fingerprint.of(recoveryContext(userUuid), normaliseRecoveryCode(code));
  }

  #tokenHash(mfaToken: string): string {
    return this.fingerprint.of('mfa_token:', Buffer.from(mfaToken, 'utf8'));
  }
}

type TotpHmac = (algorithm: string, key: Uint8Array, message: Uint8Array) => Uint8Array;

/**
 * otpauth's HMAC for one check, over a `KeyObject` made once: its default passes the secret's bytes to
 * `createHmac`, which imports them as a key anew for each of the window's three codes (≈ 10 µs each).
 */
const keyedHmac =
  (key: KeyObject): TotpHmac =>
  (algorithm, _key, message) =>
    createHmac(algorithm, key).update(message).digest();

/** `xxxxx-xxxxx`: 10 characters of a 31-letter alphabet without look-alikes (≈ 49 bits). */
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

const recoveryContext = (userUuid: number) => `recovery:${userUuid}:`;
const enrolContext = (userUuid: number) => `totp_enrol:${userUuid}:`;

/** Case, spaces and dashes do not matter when a recovery code is typed back. */
const normaliseRecoveryCode = (code: string): Buffer =>
  Buffer.from(code.toLowerCase().replace(/[\s-]/g, ''), 'utf8');
