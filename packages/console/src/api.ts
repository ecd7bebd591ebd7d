/**
 * The console's only way to the service: the public JSON API under /v1, with the login JWT as a
 * Bearer header. The JWT lives in sessionStorage (it ends with the tab, and expires within the hour
 * anyway); no cookie is involved, so a cross-site form cannot act with it (no CSRF surface).
 */
import { t } from './i18n/translator.js';

const SESSION_KEY = 'dauth.console.session';

export interface Session {
  token: string;
  uuid: string;
  email: string;
}

export function currentSession(): Session | null {
  const raw = sessionStorage.getItem(SESSION_KEY);
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<Session>;
    if (typeof parsed.token !== 'string' || typeof parsed.email !== 'string') return null;
    if (tokenExpired(parsed.token)) {
      sessionStorage.removeItem(SESSION_KEY);
      return null;
    }
    return { token: parsed.token, uuid: String(parsed.uuid ?? ''), email: parsed.email };
  } catch {
    return null;
  }
}

export function forgetSession(): void {
  sessionStorage.removeItem(SESSION_KEY);
}

/** Reads `exp` from the JWT payload only to stop using an expired token; the server verifies it. */
function tokenExpired(token: string): boolean {
  const payload = token.split('.')[1];
  if (!payload) return true;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: number };
    return typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now();
  } catch {
    return true;
  }
}

/** An API refusal in the decisions §2 shape: `{ success: false, error, message }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

/**
 * Called when an action needs a fresh login (401 `reauthentication_required`, the step-up rule):
 * resolves with the password the user typed, or null when they cancel.
 */
let askPassword: (reason: string) => Promise<string | null> = async () => null;
export function onStepUp(ask: (reason: string) => Promise<string | null>): void {
  askPassword = ask;
}

/**
 * The step-up of a session without a password (a passkey or federated sign-in, whose session has no
 * e-mail): resolves true once the session holds a fresh login of the same account (a passkey ceremony),
 * false when the user cancels. The dialog may also leave the page for the provider's sign-in instead.
 */
let confirmWithoutPassword: (reason: string) => Promise<boolean> = async () => false;
export function onStepUpWithoutPassword(confirm: (reason: string) => Promise<boolean>): void {
  confirmWithoutPassword = confirm;
}

/**
 * Asks for the second step of a sign-in (docs/mfa.md): resolves with the code typed (the authenticator's
 * or a recovery code), or null when the user cancels.
 */
let askCode: (reason: string) => Promise<string | null> = async () => null;
export function onSecondFactor(ask: (reason: string) => Promise<string | null>): void {
  askCode = ask;
}

/** A fresh login of the signed-in account; false when the user cancels the prompt. */
async function confirmItIsYou(session: Session): Promise<boolean> {
  if (!session.email) return confirmWithoutPassword(t('console.stepup.reason_other'));
  const password = await askPassword(t('console.stepup.reason_password'));
  if (password === null) return false;
  return (await signInWithPrompt(session.email, password)) !== null;
}

export interface CallOptions {
  /**
   * Keep the cookies of the answer (a same-origin fetch): only `POST /v1/dev-user/identities/link`, whose
   * HttpOnly link cookie binds the link URL to this browser (decisions §9). Every other call omits them.
   */
  keepCookies?: boolean;
  retried?: boolean;
  /** The body already carries a solved bot challenge (docs/security.md): a second refusal is final. */
  solved?: boolean;
}

const hex = (buffer: ArrayBuffer) =>
  Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * A solved bot challenge (docs/security.md "Bot challenge"): `GET /v1/challenge`, then the number n with
 * SHA-256(salt + n) = challenge by brute force, as the base64 JSON the covered routes take as `altcha`.
 */
export async function solveChallenge(): Promise<string | undefined> {
  const response = await fetch('/v1/challenge?client_id=dauth%3Aconsole', { cache: 'no-store' });
  if (!response.ok) return undefined;
  const c = (await response.json()) as {
    algorithm: string;
    challenge: string;
    salt: string;
    signature: string;
    maxnumber: number;
  };
  const encoder = new TextEncoder();
  for (let n = 0; n <= c.maxnumber; n++) {
    if (hex(await crypto.subtle.digest('SHA-256', encoder.encode(`${c.salt}${n}`))) === c.challenge) {
      const { algorithm, challenge, salt, signature } = c;
      return btoa(JSON.stringify({ algorithm, challenge, number: n, salt, signature }));
    }
  }
  return undefined;
}

export async function call<T = Json>(
  method: string,
  path: string,
  body?: Json,
  options: CallOptions = {},
): Promise<T> {
  // Signing in sends no token, and a wrong password there must not end the current session.
  const session = ANONYMOUS_PATHS.has(path) ? null : currentSession();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (session) headers.authorization = `Bearer ${session.token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: options.keepCookies ? 'same-origin' : 'omit',
    cache: 'no-store',
  });
  const text = await response.text();
  let parsed: Json = {};
  try {
    parsed = text ? (JSON.parse(text) as Json) : {};
  } catch {
    parsed = {};
  }
  if (response.ok) return parsed as T;
  const code = typeof parsed.error === 'string' ? parsed.error : `http_${response.status}`;
  const message =
    typeof parsed.message === 'string'
      ? parsed.message
      : typeof parsed.error_description === 'string'
        ? parsed.error_description
        : t('console.error.status', { status: String(response.status) });
  // `BOT_CHALLENGE` covers the request, or the account is under guessing: prove some work and send it again.
  if (code === 'challenge_required' && body !== undefined && !options.solved) {
    const altcha = await solveChallenge();
    if (altcha) return call<T>(method, path, { ...body, altcha }, { ...options, solved: true });
  }
  if (response.status === 401 && code === 'reauthentication_required' && session && !options.retried) {
    if (await confirmItIsYou(session)) return call<T>(method, path, body, { ...options, retried: true });
  }
  if (response.status === 401 && code !== 'reauthentication_required' && session) {
    // The token expired or was revoked (sign-out elsewhere, password change): sign in again.
    forgetSession();
  }
  throw new ApiError(response.status, code, message);
}

const LOGIN_PATH = '/v1/dev-user/login_devuser';
const MFA_PATH = '/v1/dev-user/login/mfa';
/** Sign-in steps: they send no token, and a wrong password or code must not end the current session. */
const ANONYMOUS_PATHS = new Set([LOGIN_PATH, MFA_PATH]);

/**
 * The first step of a sign-in of an account with TOTP (docs/mfa.md): the password (or the federated
 * sign-in) was right; `POST /v1/dev-user/login/mfa` with a code finishes it (`finishSignIn`).
 */
export class SecondFactorRequired extends Error {
  constructor(
    readonly mfaToken: string,
    readonly methods: string[],
    /** The e-mail the session will show ('' for a federated sign-in). */
    readonly email: string,
  ) {
    super(t('console.mfa.reason'));
  }
}

interface SignInAnswer {
  token?: string;
  uuid?: string;
  mfa_required?: boolean;
  mfa_token?: string;
  methods?: string[];
}

/** Stores the session a sign-in answered, or throws `SecondFactorRequired` when it asks for a code. */
function sessionFrom(result: SignInAnswer, email: string): Session {
  if (result.mfa_required && typeof result.mfa_token === 'string') {
    throw new SecondFactorRequired(result.mfa_token, result.methods ?? [], email);
  }
  const session: Session = { token: String(result.token), uuid: String(result.uuid), email };
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return session;
}

/** The second step: a TOTP or recovery code for the sign-in's `mfa_token`. */
export async function finishSignIn(challenge: SecondFactorRequired, code: string): Promise<Session> {
  const result = await call<SignInAnswer>('POST', MFA_PATH, { mfa_token: challenge.mfaToken, code });
  return sessionFrom(result, challenge.email);
}

/**
 * Finishes a sign-in that asks for a second factor with the code prompt (the step-up, a re-sign-in after
 * a password change, a federated sign-in's ticket); null when the user cancels it.
 */
async function withSecondFactor(first: () => Promise<Session>): Promise<Session | null> {
  try {
    return await first();
  } catch (error) {
    if (!(error instanceof SecondFactorRequired)) throw error;
    const code = await askCode(error.message);
    if (code === null) return null;
    return finishSignIn(error, code);
  }
}

/** `signIn`, with the code prompt when the account has a second factor; null when the user cancels. */
export function signInWithPrompt(email: string, password: string): Promise<Session | null> {
  return withSecondFactor(() => signIn(email, password));
}

/**
 * The console's login binding (decisions §8): it is first-party and no app, so its JWT is bound to
 * `dauth:console` and opens no app's authorize (docs/security.md, "Login binding").
 */
const CONSOLE_BINDING = 'dauth:console';

/**
 * Signs in; a wrong password leaves any current session as it was (the step-up prompt relies on it). An
 * account with TOTP throws `SecondFactorRequired`: `finishSignIn` with a code completes it.
 */
export async function signIn(email: string, password: string): Promise<Session> {
  const result = await call<SignInAnswer>('POST', LOGIN_PATH, {
    email,
    password,
    client_id: CONSOLE_BINDING,
  });
  return sessionFrom(result, email);
}

/** Revokes the login JWT on the server, then forgets it here even if the server could not be reached. */
export async function signOut(): Promise<void> {
  try {
    if (currentSession()) await call('POST', '/v1/dev-user/logout');
  } catch {
    // The token is dropped below either way; it expires within the hour.
  } finally {
    forgetSession();
  }
}

export const encode = encodeURIComponent;

/**
 * Signs in with a passkey (docs/players.md): a discoverable-credential ceremony, so no e-mail is typed.
 * The session then has no e-mail to show or to confirm a password with; it shows the uuid instead.
 */
export async function signInWithPasskey(): Promise<Session> {
  const session = await passkeyLogin();
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  return session;
}

/**
 * The step-up of a session without a password: a passkey ceremony that must sign in the same account.
 * A passkey of another account on this device leaves the current session as it was.
 */
export async function reconfirmWithPasskey(): Promise<void> {
  const current = currentSession();
  const fresh = await passkeyLogin();
  if (!current || fresh.uuid !== current.uuid) {
    throw new ApiError(403, 'other_account', t('console.stepup.other_account'));
  }
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(fresh));
}

/** A discoverable-credential ceremony answered by the service with a login JWT (not stored here). */
async function passkeyLogin(): Promise<Session> {
  // Anonymous requests: the ceremony needs no token, and a refusal must not end the current session.
  const options = await anonymousPost('/v1/dev-user/passkeys/authentication-options', {});
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(
    options as unknown as PublicKeyCredentialRequestOptionsJSON,
  );
  const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new ApiError(400, 'passkey_cancelled', t('console.passkey.not_chosen'));
  const result = (await anonymousPost('/v1/dev-user/passkeys/login', {
    ...(credential.toJSON() as unknown as Json),
    client_id: CONSOLE_BINDING,
  })) as SignInAnswer;
  // A passkey without user verification (no PIN) is one factor: an account with TOTP asks for the code.
  if (result.mfa_required && typeof result.mfa_token === 'string') {
    throw new SecondFactorRequired(result.mfa_token, result.methods ?? [], '');
  }
  return { token: String(result.token), uuid: String(result.uuid), email: '' };
}

async function anonymousPost(path: string, body: Json): Promise<Json> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const parsed = (await response.json().catch(() => ({}))) as Json;
  if (response.ok) return parsed;
  const code = typeof parsed.error === 'string' ? parsed.error : `http_${response.status}`;
  const message =
    typeof parsed.message === 'string'
      ? parsed.message
      : t('console.error.status', { status: String(response.status) });
  throw new ApiError(response.status, code, message);
}

/**
 * Signs in with the ticket a federated sign-in left in the URL (`#login_ticket=…`, decisions §8): single
 * use, redeemed for a login JWT like the password sign-in's. The session has no e-mail, like a passkey's.
 */
export async function redeemLoginTicket(ticket: string): Promise<Session> {
  const session = await withSecondFactor(async () =>
    sessionFrom(await call<SignInAnswer>('POST', '/v1/federation/login-ticket', { ticket }), ''),
  );
  if (!session) throw new ApiError(400, 'mfa_cancelled', t('console.mfa.cancelled'));
  return session;
}

/** Creates a passkey with the browser and answers the registration options with it (the JSON to send). */
export async function createPasskey(): Promise<Json> {
  const options = await call<Json>('POST', '/v1/dev-user/passkeys/registration-options', {});
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(
    options as unknown as PublicKeyCredentialCreationOptionsJSON,
  );
  const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new ApiError(400, 'passkey_cancelled', t('console.passkey.not_created'));
  return credential.toJSON() as unknown as Json;
}

/** True where the browser can do the WebAuthn JSON ceremonies the console uses. */
export const passkeysSupported = (): boolean =>
  typeof PublicKeyCredential !== 'undefined' &&
  typeof PublicKeyCredential.parseRequestOptionsFromJSON === 'function';
