import { createHash } from 'node:crypto';
import {
  type BrowserFlow,
  type ProviderConfig,
  type ProviderDeps,
  type UpstreamIdentity,
  type UpstreamProvider,
  UpstreamRejected,
  UpstreamUnavailable,
} from './upstreamProvider.js';
import { codeTokenRequest } from './tokenRequest.js';

/** How the client authenticates at the token endpoint (RFC 6749 §2.3.1). Default: `client_secret_post`. */
export type TokenEndpointAuthMethod = 'client_secret_post' | 'client_secret_basic';

/** The `oauth2` kind's settings beyond the shared contract (set by the `discord` preset or explicitly). */
export interface OAuth2Settings {
  token_endpoint_auth_method?: TokenEndpointAuthMethod;
}

const BACKCHANNEL_TIMEOUT_MS = 10_000;

/** RFC 7636 S256: the challenge the authorization request carries for `verifier`. */
export const pkceChallenge = (verifier: string): string =>
  createHash('sha256').update(verifier, 'ascii').digest('base64url');

/**
 * The `oauth2` kind: a plain OAuth 2.0 upstream without id_tokens (Discord). Authorization code with
 * PKCE S256 and `state` at `authorization_endpoint`; the code is exchanged at `token_endpoint` (client
 * secret in the form or by HTTP Basic), and who signed in is read from `userinfo_endpoint` with the access
 * token. Userinfo is mapped from Discord's shape (`id`, `email`, `verified`, `global_name`/`username`) or
 * the OIDC one (`sub`, `email`, `email_verified`, `name`). There is no native flow: no `verifyIdToken`.
 */
export class OAuth2Provider implements UpstreamProvider {
  readonly id: string;
  readonly kind = 'oauth2' as const;
  readonly name: string;
  private readonly authorizationEndpoint: string;
  private readonly tokenEndpoint: string;
  private readonly userinfoEndpoint: string;
  private readonly authMethod: TokenEndpointAuthMethod;

  constructor(
    private readonly cfg: ProviderConfig & OAuth2Settings,
    private readonly deps: ProviderDeps,
  ) {
    this.id = cfg.id;
    this.name = cfg.name;
    const endpoint = (name: 'authorization_endpoint' | 'token_endpoint' | 'userinfo_endpoint'): string => {
      const value = cfg[name];
      if (value === undefined || !URL.canParse(value)) {
        throw new Error(`identity provider ${cfg.id}: ${name} must be an absolute URL`);
      }
      return value;
    };
    this.authorizationEndpoint = endpoint('authorization_endpoint');
    this.tokenEndpoint = endpoint('token_endpoint');
    this.userinfoEndpoint = endpoint('userinfo_endpoint');
    this.authMethod = cfg.token_endpoint_auth_method ?? 'client_secret_post';
  }

  authorizationUrl(flow: BrowserFlow): Promise<URL> {
    const url = new URL(this.authorizationEndpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.cfg.client_id);
    url.searchParams.set('redirect_uri', flow.callbackUrl);
    if (this.cfg.scopes && this.cfg.scopes.length > 0)
      url.searchParams.set('scope', this.cfg.scopes.join(' '));
    url.searchParams.set('state', flow.state);
    url.searchParams.set('code_challenge', pkceChallenge(flow.codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    // A step-up: OAuth 2.0 has no "sign in again"; `prompt=consent` (Discord's) at least makes the user
    // approve on the provider's page instead of a silent redirect. Servers ignore parameters they lack.
    if (flow.reauthenticateSince !== undefined) url.searchParams.set('prompt', 'consent');
    return Promise.resolve(url);
  }

  async completeBrowserFlow(callback: URLSearchParams, flow: BrowserFlow): Promise<UpstreamIdentity> {
    const error = callback.get('error');
    if (error !== null) {
      throw new UpstreamRejected(
        error === 'access_denied' ? 'cancelled' : 'upstream_error',
        `${this.name} did not sign you in (${error.slice(0, 64)}).`,
      );
    }
    if (callback.get('state') !== flow.state) {
      throw new UpstreamRejected('state_mismatch', 'The answer does not belong to this sign-in.');
    }
    const code = callback.get('code');
    if (!code) throw new UpstreamRejected('no_code', `${this.name} sent no authorization code.`);
    const accessToken = await this.exchange(code, flow);
    return mapUserinfo(await this.userinfo(accessToken));
  }

  private async exchange(code: string, flow: BrowserFlow): Promise<string> {
    const { body: form, headers } = codeTokenRequest(code, flow, {
      id: this.cfg.client_id,
      secret: this.cfg.client_secret,
      method: this.authMethod,
    });
    const { status, body } = await this.backchannel('token endpoint', this.tokenEndpoint, {
      method: 'POST',
      headers,
      body: form.toString(),
    });
    if (status !== 200) {
      const code = typeof body?.error === 'string' ? body.error.slice(0, 64) : String(status);
      throw new UpstreamRejected('token_refused', `${this.name} refused the authorization code (${code}).`);
    }
    const accessToken = body?.access_token;
    const tokenType = body?.token_type;
    if (typeof accessToken !== 'string' || accessToken === '') {
      throw new UpstreamUnavailable(`${this.name}'s token endpoint answered without an access token.`);
    }
    if (typeof tokenType === 'string' && tokenType.toLowerCase() !== 'bearer') {
      throw new UpstreamRejected(
        'token_type',
        `${this.name} issued a ${tokenType.slice(0, 32)} token, not Bearer.`,
      );
    }
    return accessToken;
  }

  private async userinfo(accessToken: string): Promise<Record<string, unknown>> {
    const { status, body } = await this.backchannel('userinfo endpoint', this.userinfoEndpoint, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    });
    if (status !== 200 || body === undefined) {
      throw new UpstreamRejected('userinfo_refused', `${this.name} would not say who signed in (${status}).`);
    }
    return body;
  }

  /** One request to the upstream's back channel: 5xx, garbage or no answer → UpstreamUnavailable. */
  private async backchannel(
    what: string,
    url: string,
    init: RequestInit,
  ): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    let response: Response;
    let text: string;
    try {
      response = await this.deps.fetch(url, {
        ...init,
        redirect: 'error',
        signal: AbortSignal.timeout(BACKCHANNEL_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (err) {
      throw new UpstreamUnavailable(`${this.name}'s ${what} could not be reached.`, { cause: err });
    }
    if (response.status >= 500)
      throw new UpstreamUnavailable(`${this.name}'s ${what} answered ${response.status}.`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const record =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : undefined;
    if (response.status === 200 && record === undefined) {
      throw new UpstreamUnavailable(`${this.name}'s ${what} answered something other than a JSON object.`);
    }
    return { status: response.status, body: record };
  }
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null;

/**
 * Who signed in, from a userinfo answer: OIDC's claims when it has `sub`, else Discord's `/users/@me`
 * (`id`, `email`, `verified`, `global_name` or else `username`). An e-mail counts as verified only when the
 * upstream says so with `true`.
 */
export function mapUserinfo(info: Record<string, unknown>): UpstreamIdentity {
  const oidcShaped = info.sub !== undefined;
  const rawSubject = oidcShaped ? info.sub : info.id;
  const subject =
    typeof rawSubject === 'string'
      ? rawSubject
      : typeof rawSubject === 'number' && Number.isSafeInteger(rawSubject)
        ? String(rawSubject)
        : '';
  if (subject === '' || subject.length > 255) {
    throw new UpstreamRejected('no_subject', 'The upstream did not say who signed in.');
  }
  const email = text(info.email);
  const verified = oidcShaped ? info.email_verified : info.verified;
  const displayName = oidcShaped
    ? (text(info.name) ?? text(info.preferred_username))
    : (text(info.global_name) ?? text(info.username));
  return {
    subject,
    email,
    emailVerified: email !== null && (verified === true || verified === 'true'),
    displayName: displayName === null ? null : displayName.slice(0, 100),
  };
}
