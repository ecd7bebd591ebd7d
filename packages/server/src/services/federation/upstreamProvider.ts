import type { PlatformKind } from './platform/platformProvider.js';

/**
 * The contract every upstream identity provider kind implements (decisions §8, "Sign in with Google,
 * Apple, Discord, Steam"). The federation service owns the flow (state, the browser-bound flow cookie,
 * accounts and linking); a provider only speaks its upstream protocol:
 *   - `oidc`   OpenID Connect (discovery, authorization code + PKCE, id_token checked against its JWKS);
 *   - `oauth2` explicit endpoints + a userinfo endpoint (Discord);
 *   - `steam`  OpenID 2.0 (checkid_setup, then check_authentication direct verification).
 * A provider never creates or links accounts and never sees dauth's users.
 */

/** Who the upstream says signed in. `subject` is stable per provider: an identity is (provider id, subject). */
export interface UpstreamIdentity {
  subject: string;
  /** Only ever used to create an account when `emailVerified` is true; never to link one. */
  email: string | null;
  emailVerified: boolean;
  displayName: string | null;
  /**
   * When the person last proved a credential at the upstream (Unix seconds), when the upstream says so:
   * an id_token's `auth_time`, else its `iat`. Undefined for kinds that never say (oauth2, steam): the
   * federation service then counts the sign-in as fresh only when the flow forced an interaction.
   */
  authTime?: number;
}

/** The per-flow values the federation service generates and keeps server-side, bound to the browser. */
export interface BrowserFlow {
  /** Opaque, high-entropy; travels through the upstream and identifies the flow on the way back. */
  state: string;
  /** For `oidc`: the id_token must carry it. Ignored by kinds without one. */
  nonce: string;
  /** PKCE (S256) verifier; the provider derives the challenge. Ignored by kinds without PKCE (Steam). */
  codeVerifier: string;
  /** dauth's absolute callback URL for this provider (`{PUBLIC_URL}/v1/federation/{id}/callback`). */
  callbackUrl: string;
  /**
   * A step-up (the console's "confirm it is you"): the upstream must authenticate the user again, at or
   * after this time (ms), rather than answer from its own session. `oidc` asks with `prompt=login` and
   * `max_age=0` and checks the id_token's `auth_time`; kinds without such a request do what they can
   * (docs/federation.md, "Step-up").
   */
  reauthenticateSince?: number;
}

export type ProviderKind = 'oidc' | 'oauth2' | 'steam';

export interface UpstreamProvider {
  readonly id: string;
  readonly kind: ProviderKind;
  /** Shown on the login page: "Continue with {name}". */
  readonly name: string;
  /** Where to send the browser to sign in upstream. May fetch discovery (the first use) and so may fail. */
  authorizationUrl(flow: BrowserFlow): Promise<URL>;
  /**
   * Completes a browser flow from the callback's full query (already matched to `flow` by `state`).
   * Throws UpstreamRejected for anything the upstream or its assertion gets wrong.
   */
  completeBrowserFlow(callback: URLSearchParams, flow: BrowserFlow): Promise<UpstreamIdentity>;
  /**
   * The native flow (`POST /v1/dev-user/federated-login`, and a link by id_token): only kinds that issue
   * id_tokens have it. Each id_token is accepted once: a second presentation, while it could still be
   * valid, throws UpstreamRejected with reason `replayed`.
   */
  verifyIdToken?(idToken: string): Promise<UpstreamIdentity>;
}

/**
 * The upstream's answer cannot be trusted (bad signature, wrong audience, expired, replayed nonce,
 * wrong OP endpoint, upstream error). `reason` is for logs and tests; callers answer without it.
 */
export class UpstreamRejected extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamRejected';
  }
}

/** The upstream could not be reached or answered garbage (discovery down, token endpoint 5xx). */
export class UpstreamUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamUnavailable';
  }
}

/**
 * One entry of `IDENTITY_PROVIDERS` after its preset (google, apple, discord, steam) is applied
 * (`presets.ts`). Field names follow the configuration's JSON (decisions §8).
 */
export interface ProviderConfig {
  id: string;
  /** A browser kind (`UpstreamProvider`) or a platform kind (`platform/platformProvider.ts`). */
  kind: ProviderKind | PlatformKind;
  name: string;
  client_id: string;
  /** Audiences accepted on a native id_token (the web client id plus the iOS/Android ones); default [client_id]. */
  client_ids?: string[];
  client_secret?: string;
  scopes?: string[];
  /** `oidc`: discovered from `${issuer}/.well-known/openid-configuration` on first use. */
  issuer?: string;
  /** `oidc`: `form_post` (Apple, when it is asked for name or e-mail) makes the callback a POST. */
  response_mode?: 'query' | 'form_post';
  /** `oauth2`: explicit endpoints. */
  authorization_endpoint?: string;
  token_endpoint?: string;
  userinfo_endpoint?: string;
  /** `apple`: the client secret is an ES256 JWT made from these (Apple's "Sign in with Apple" key). */
  team_id?: string;
  key_id?: string;
  private_key?: string;
  /** `steam`: the OpenID 2.0 OP endpoint (default Steam's own; tests point it at a local server). */
  op_endpoint?: string;
  /** `steam`: Web API key (STEAM_WEB_API_KEY) for the profile name, and its base URL (tests). */
  web_api_key?: string;
  web_api_url?: string;
  /** `steam_ticket`: the Steam app id, the `identity` string the game passes to GetAuthTicketForWebApi. */
  app_id?: string;
  identity?: string;
  /** `steam_ticket` (partner Web API) and `google_play_games` (Play Games API): the API's base URL. */
  api_base_url?: string;
  /** `steam_ticket`: accept VAC-banned accounts (publisher bans are always refused). */
  allow_vac_banned?: boolean;
  /** `epic`: the EOS JWKS (default EOS's own). */
  jwks_uri?: string;
  /** `game_center`: the app's bundle id (and more, for several apps of the team). */
  bundle_id?: string;
  bundle_ids?: string[];
  /** `game_center`: the trust anchor (PEM, or `@file`); default the PEM shipped in `packages/server/trust`. */
  trust_anchor?: string;
  /** `game_center`: the host public_key_url must be on (default `apple.com`; loopback only for local tries). */
  public_key_host?: string;
}

/** What a provider may use; injected so tests can run every kind against real local servers. */
export interface ProviderDeps {
  fetch: typeof fetch;
  now: () => number;
  /** Single-use markers (OpenID 2.0 response nonces): true the first time a key is claimed, false after. */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
}
