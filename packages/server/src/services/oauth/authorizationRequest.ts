import type { OAuthClient } from '../../stores/clientStore.js';
import {
  checkOidcParams,
  type OidcAuthorization,
  type OidcAuthorizationParams,
  oidcFields,
} from '../oidc/authorizationPrompt.js';
import type { ClientService } from './clientService.js';
import { isValidCodeChallenge } from './pkce.js';

/** The query of `GET /oauth/authorize` (and the hidden fields of the page's forms). */
export interface AuthorizationParams extends OidcAuthorizationParams {
  client_id: string;
  redirect_uri: string;
  response_type?: string | undefined;
  state?: string | undefined;
  code_challenge?: string | undefined;
  code_challenge_method?: string | undefined;
  /** OpenID-style `display=popup`: answer with the page that posts the browser messages. */
  display?: string | undefined;
  /** OpenID Connect `ui_locales`: the pages' language, space-separated BCP 47 tags by preference. */
  ui_locales?: string | undefined;
}

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: 'S256' | undefined;
  popup: boolean;
  /** OpenID Connect: granted scope, nonce, prompt, max_age (docs/oidc.md). */
  oidc: OidcAuthorization;
  /**
   * OpenID Connect `ui_locales`, tidied (`uiLocalesOf`): the language of every page of the flow (decisions
   * §9), kept in the forms' hidden fields. Undefined when the request named none.
   */
  uiLocales?: string | undefined;
}

/** The longest `ui_locales` the pages keep: ten tags of a usual length (the rest are ignored). */
export const MAX_UI_LOCALES_LENGTH = 200;
const MAX_UI_LOCALES_TAGS = 10;

/**
 * `ui_locales` as the flow keeps it: at most ten tags, each of BCP 47's characters (letters, digits, `-`)
 * and at most 35 long, in the request's order. Tags this service has no catalogue for stay (the pages
 * fall back to the next tag, then the cookie, `Accept-Language`, English); nothing is refused, it is
 * only a hint (OpenID Connect Core §3.1.2.1). Undefined when nothing is left.
 */
export function uiLocalesOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const tags = value
    .slice(0, MAX_UI_LOCALES_LENGTH)
    .split(/\s+/)
    .filter((tag) => tag.length > 0 && tag.length <= 35 && /^[A-Za-z0-9-]+$/.test(tag))
    .slice(0, MAX_UI_LOCALES_TAGS);
  return tags.length > 0 ? tags.join(' ') : undefined;
}

export const MAX_STATE_LENGTH = 2048;

export type AuthorizationCheck =
  | { kind: 'ok'; request: AuthorizationRequest }
  /** Unknown client or unregistered redirect URI: never redirect (spec: 401 `redirect_uri mismatch`). */
  | { kind: 'mismatch' }
  /** The redirect URI is trusted, so other problems go back to the app (RFC 6749 §4.1.2.1). */
  | {
      kind: 'redirect_error';
      redirectUri: string;
      state: string | undefined;
      error: string;
      description: string;
    };

/** Validates an authorization request in the order RFC 6749 prescribes: client and redirect URI first. */
export async function checkAuthorizationRequest(
  clients: ClientService,
  params: AuthorizationParams,
): Promise<AuthorizationCheck> {
  const client = await clients.findClient(params.client_id);
  if (!client || !clients.isRegisteredRedirect(client, params.redirect_uri)) return { kind: 'mismatch' };
  const redirectUri = params.redirect_uri;
  const fail = (error: string, description: string): AuthorizationCheck => ({
    kind: 'redirect_error',
    redirectUri,
    state: params.state !== undefined && params.state.length <= MAX_STATE_LENGTH ? params.state : undefined,
    error,
    description,
  });
  if (params.response_type === undefined || params.response_type === '') {
    return fail('invalid_request', 'response_type is required');
  }
  if (params.response_type !== 'code') {
    return fail('unsupported_response_type', 'response_type must be code');
  }
  if (params.state !== undefined && params.state.length > MAX_STATE_LENGTH) {
    return fail('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters`);
  }
  let codeChallengeMethod: 'S256' | undefined;
  if (params.code_challenge !== undefined) {
    if (params.code_challenge_method !== 'S256') {
      return fail('invalid_request', 'code_challenge_method must be S256');
    }
    if (!isValidCodeChallenge(params.code_challenge)) {
      return fail('invalid_request', 'code_challenge must be 43 to 128 base64url characters');
    }
    codeChallengeMethod = 'S256';
  } else if (params.code_challenge_method !== undefined) {
    return fail('invalid_request', 'code_challenge_method was sent without code_challenge');
  }
  const oidc = checkOidcParams(params);
  if ('error' in oidc) return fail(oidc.error, oidc.description);
  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      state: params.state,
      codeChallenge: params.code_challenge,
      codeChallengeMethod,
      popup: params.display === 'popup',
      oidc: oidc.ok,
      uiLocales: uiLocalesOf(params.ui_locales),
    },
  };
}

/**
 * Appends parameters to the registered redirect URI without re-serialising it, so the app receives
 * its URI exactly as registered (an existing query is kept).
 */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.append(key, value);
  const text = query.toString();
  if (text === '') return redirectUri;
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${text}`;
}

/** The hidden form fields that carry an authorization request through the page's forms. */
export function authorizationFields(request: AuthorizationRequest): Record<string, string> {
  const fields: Record<string, string> = {
    client_id: request.client.clientId,
    redirect_uri: request.redirectUri,
    response_type: 'code',
  };
  if (request.state !== undefined) fields.state = request.state;
  if (request.codeChallenge !== undefined) {
    fields.code_challenge = request.codeChallenge;
    fields.code_challenge_method = 'S256';
  }
  Object.assign(fields, oidcFields(request.oidc));
  if (request.popup) fields.display = 'popup';
  if (request.uiLocales !== undefined) fields.ui_locales = request.uiLocales;
  return fields;
}
