import { ACR_MFA, asksForMfa } from './authenticationContext.js';
import { grantedOidcScope } from './scopes.js';

/** `prompt` values dauth supports (OIDC Core §3.1.2.1); `select_account` is not offered. */
export const PROMPT_VALUES = ['none', 'login', 'consent'] as const;
export type Prompt = (typeof PROMPT_VALUES)[number];

export const MAX_NONCE_LENGTH = 512;

/** The OpenID Connect parameters of `GET /oauth/authorize` (also carried by the page's forms). */
export interface OidcAuthorizationParams {
  scope?: string | undefined;
  nonce?: string | undefined;
  prompt?: string | undefined;
  max_age?: string | undefined;
  acr_values?: string | undefined;
}

/** The checked OIDC part of an authorization request. */
export interface OidcAuthorization {
  /** The granted scope when the request asked for `openid`; undefined for plain OAuth 2.0. */
  scope: string | undefined;
  nonce: string | undefined;
  prompt: Prompt[];
  /** Seconds; the session's authentication must be at most this old. */
  maxAge: number | undefined;
  /** `acr_values` named `mfa`: the sign-in must be two factors (other values are ignored). */
  mfa: boolean;
}

export type OidcParamsCheck = { ok: OidcAuthorization } | { error: 'invalid_request'; description: string };

/** Validates `scope`, `nonce`, `prompt` and `max_age`. Without any of them the request is plain OAuth 2.0. */
export function checkOidcParams(params: OidcAuthorizationParams): OidcParamsCheck {
  const fail = (description: string): OidcParamsCheck => ({ error: 'invalid_request', description });
  if (params.nonce !== undefined && (params.nonce.length === 0 || params.nonce.length > MAX_NONCE_LENGTH)) {
    return fail(`nonce must be 1 to ${MAX_NONCE_LENGTH} characters`);
  }
  const prompt: Prompt[] = [];
  for (const value of (params.prompt ?? '').split(' ').filter((v) => v !== '')) {
    if (!(PROMPT_VALUES as readonly string[]).includes(value)) {
      return fail(`prompt must be made of ${PROMPT_VALUES.join(', ')}`);
    }
    if (!prompt.includes(value as Prompt)) prompt.push(value as Prompt);
  }
  if (prompt.includes('none') && prompt.length > 1) {
    return fail('prompt=none cannot be combined with other values');
  }
  let maxAge: number | undefined;
  if (params.max_age !== undefined) {
    if (!/^\d{1,10}$/.test(params.max_age)) return fail('max_age must be a number of seconds');
    maxAge = Number(params.max_age);
  }
  return {
    ok: {
      scope: grantedOidcScope(params.scope),
      nonce: params.nonce,
      prompt,
      maxAge,
      mfa: asksForMfa(params.acr_values),
    },
  };
}

/** The page's browser session, as far as the prompt decision needs it. */
export interface SessionState {
  userUuid: number;
  /** When the user signed in on the page (ms). */
  authTime: number;
}

/** What `GET /oauth/authorize` does next for a browser (not for a bearer caller). */
export type AuthorizeStep =
  'login' | 'consent' | 'issue' | { error: 'login_required' | 'consent_required'; description: string };

/**
 * The browser path's decision (OIDC Core §3.1.2.1 `prompt` and `max_age`):
 * - no session, a session older than `max_age`, or `prompt=login` → the sign-in form;
 * - `prompt=consent`, or an app the user never approved for these scopes → the consent page;
 * - otherwise the code at once.
 * With `prompt=none` nothing may be shown: `login_required` / `consent_required` go back to the app.
 */
export function nextAuthorizeStep(input: {
  oidc: OidcAuthorization;
  session: SessionState | undefined;
  /** Whether the session's user approved this app for the requested scopes (only asked with a session). */
  consented: boolean;
  now: number;
}): AuthorizeStep {
  const { oidc, session } = input;
  const silent = oidc.prompt.includes('none');
  const tooOld =
    session !== undefined &&
    oidc.maxAge !== undefined &&
    Math.floor((input.now - session.authTime) / 1000) > oidc.maxAge;
  if (session === undefined || tooOld || oidc.prompt.includes('login')) {
    return silent
      ? {
          error: 'login_required',
          description: session ? 'The sign-in is older than max_age' : 'The user is not signed in',
        }
      : 'login';
  }
  if (oidc.prompt.includes('consent') || !input.consented) {
    return silent
      ? { error: 'consent_required', description: 'The user has not approved this app for these scopes' }
      : 'consent';
  }
  return 'issue';
}

/** After a sign-in on the page, `prompt=login` is satisfied: dropping it stops the form coming back. */
export function afterSignIn(oidc: OidcAuthorization): OidcAuthorization {
  return { ...oidc, prompt: oidc.prompt.filter((p) => p !== 'login') };
}

/** The hidden form fields carrying the OIDC parameters through the page (the granted scope, not the asked one). */
export function oidcFields(oidc: OidcAuthorization): Record<string, string> {
  const fields: Record<string, string> = {};
  if (oidc.scope !== undefined) fields.scope = oidc.scope;
  if (oidc.nonce !== undefined) fields.nonce = oidc.nonce;
  if (oidc.prompt.length > 0) fields.prompt = oidc.prompt.join(' ');
  if (oidc.maxAge !== undefined) fields.max_age = String(oidc.maxAge);
  if (oidc.mfa) fields.acr_values = ACR_MFA;
  return fields;
}
