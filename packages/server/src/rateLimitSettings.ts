/**
 * Every per-route rate limit of the service, by name, with its default. An operator changes any of
 * them with the one setting `RATE_LIMITS` (README, docs/security.md): a comma-separated list of
 * `name=count/window`, the window a number with a unit `s`, `m` or `h` (`1m` when only the unit is
 * given: `login=5/m`). Names not listed keep their defaults.
 */
export interface RateLimit {
  max: number;
  windowMs: number;
}

const perMinute = (max: number): RateLimit => ({ max, windowMs: 60_000 });

export const RATE_LIMIT_DEFAULTS = {
  /** Password sign-ins per address and e-mail, the login API and the login page together. */
  login: perMinute(10),
  /** Password sign-ins per address across every e-mail (each one costs a scrypt). */
  login_address: perMinute(30),
  /** Second-step codes (`/v1/dev-user/login/mfa`) per address; each mfa_token also ends after 5 codes. */
  login_mfa: perMinute(30),
  /** Wrong second-step codes per account, across all its mfa_tokens and addresses (the JSON route and the pages). */
  login_mfa_account: { max: 10, windowMs: 15 * 60_000 },
  /**
   * Failed password sign-ins per account (its e-mail), from every address together: past it every sign-in
   * of the account needs an ALTCHA solution or the code mailed to its owner (docs/security.md).
   */
  login_account: { max: 10, windowMs: 15 * 60_000 },
  /** `GET /v1/challenge` per address (each one is a hash and an HMAC). */
  challenge: perMinute(600),
  /** Challenges per network (IPv4 /24, IPv6 /48) and per app in a minute past which each doubling doubles the work. */
  challenge_network: perMinute(30),
  challenge_client: perMinute(600),
  /** TOTP enrolments, confirmations and removals per user (each confirmation or removal checks a code). */
  mfa_manage: perMinute(10),
  /** Account sign-ups per address. */
  register: perMinute(20),
  /** Guest accounts created per address (like sign-ups). */
  guest_create: perMinute(20),
  /** Guest sign-ins per address and uuid (a wrong secret counts like a wrong password). */
  guest_login: perMinute(10),
  /** Guest sign-ins per address across every uuid. */
  guest_login_address: perMinute(30),
  /** Passkey challenges handed out per address (each one is a stored row for 5 minutes). */
  passkey_options: perMinute(60),
  /** Passkey sign-ins per address. */
  passkey_login: perMinute(30),
  /** Passkey registrations, deletions and guest upgrades per user. */
  passkey_register: perMinute(20),
  /** Federated browser flows per address: starts, callbacks and console login tickets together. */
  federation: perMinute(60),
  /** Native federated sign-ins (`/v1/dev-user/federated-login`) per address: each verifies an id_token. */
  federated_login: perMinute(30),
  /** Platform sign-ins inside the game (`/v1/dev-user/platform-login`) per address: each asks the platform. */
  platform_login: perMinute(30),
  /** Identity links (by id_token or redirect) and unlinks per user. */
  identities_manage: perMinute(20),
  /** Account deletions and exports per user (each export reads every table about the person). */
  account_life: perMinute(10),
  /** Changes of the account's language per user (`PUT /v1/dev-user/account/locale`). */
  account_locale: perMinute(30),
  /** App registrations, edits' secret rotations per address. */
  clients_create: perMinute(30),
  /** Pre-generated players (`POST /v1/orgs/{id}/apps/{client_id}/players/pregenerate`) per address. */
  players_pregenerate: perMinute(600),
  /** Webhook endpoint creations, changes, secret rotations and manual retries per address. */
  webhooks_manage: perMinute(60),
  /** Organization changes per address: creations, renames, transfers, deletions, member changes, invitation revokes and acceptances. */
  orgs_manage: perMinute(60),
  /** Organization invitations sent per address (each one is a mail). */
  org_invite: perMinute(20),
  /** App activity reports (the console's charts) per address. */
  app_activity: perMinute(60),
  /** Password reset requests and confirmations, and password changes, per address. */
  password_reset: perMinute(10),
  /** `/oauth/token`, `/oauth/revoke`, `/oauth/introspect` per client and address (`OAUTH_RATE_LIMIT`). */
  oauth_token: perMinute(1200),
  /** Wrong user codes of the device authorization grant per address (page and companion API together). */
  device_user_code: perMinute(10),
  /** Wrong user codes per account (the approving player), from every address together. */
  device_user_code_user: { max: 30, windowMs: 3_600_000 },
  /** Wrong user codes from every address together: past it, each address and account gets a typo's worth. */
  device_user_code_global: perMinute(1000),
  /** Backend authorizes per user and app. */
  meta_authorize: perMinute(1000),
  /** Failed client authentications at `/v1/oauth-meta/get_token` per address. */
  meta_get_token_failures: perMinute(60),
  /** `/idex-platform/exchange_token_owner` per address. */
  exchange_token_owner: perMinute(120),
  /** Marketplace: new listings, the public list, purchases (per address). */
  market_create: perMinute(60),
  market_list: perMinute(600),
  market_purchase: perMinute(30),
  /** Every PIN, e-mail verification and transfer route together, per address. */
  pin_address: perMinute(600),
  /** PIN routes per user. */
  pin_register: perMinute(10),
  pin_verify: perMinute(30),
  pin_reset: perMinute(10),
  pin_recover: perMinute(5),
  /** E-mail verification per user. */
  email_send: perMinute(20),
  email_verify: perMinute(20),
  /** The sign-up mail's code (per user) and link (per address); resends per user (the service adds 1/min, 5/h). */
  verify_email: perMinute(20),
  verify_email_link: perMinute(30),
  verify_email_resend: perMinute(5),
  /** The security mail's "this wasn't me" page and its confirmation, per address. */
  account_secure: perMinute(30),
  /** Session keys (docs/session-keys.md): an app owner's wallet-policy changes; a player's grants and revocations, reads, and an app's session operations, per user. */
  wallet_policy: perMinute(30),
  /** An app owner's sponsorship policy (docs/sponsorship.md): PUT and GET, per address. */
  app_sponsorship: perMinute(30),
  session_keys: perMinute(20),
  session_keys_read: perMinute(120),
  session_operations: perMinute(600),
  /** `/v1/token/transfer` per user. */
  token_transfer: perMinute(30),
  /** Content tokens per user. */
  content_register: perMinute(30),
  content_buy: perMinute(30),
  content_release: perMinute(60),
  content_test_encryption: perMinute(60),
  content_payload_mode: perMinute(20),
  /** `increase_used_content_token` per address (anonymous; a provider backend sends many). */
  content_consume: perMinute(60_000),
  /** `increase_used_content_token` per cuid, every address together; counted only for payloads that authenticated. */
  content_consume_cuid: perMinute(30_000),
  /** `consume_auth` changes per user. */
  content_consume_auth: perMinute(20),
  /** `balance_adex` per address (public chain read). */
  balance_adex: perMinute(6_000),
  /** `GET /oauth/authorize` per address (each one checks the app and may issue a code). */
  authorize: perMinute(1200),
  /** `/oauth/end_session` per address (each one verifies an ID token and may end a session). */
  end_session: perMinute(60),
  /** `GET /v1/chain/info` per address (public). */
  chain_info: perMinute(600),
  /** `GET /v1/market/listings/{id}` per address (public, one database read). */
  market_listing: perMinute(600),
  /** `/readyz` per address (each one queries the database and the chain). */
  readyz: perMinute(60),
  /** Every `/v1/admin/*` request per address, counted before the key or the body is looked at. */
  admin: perMinute(300),
} satisfies Record<string, RateLimit>;

export type RateLimitName = keyof typeof RATE_LIMIT_DEFAULTS;
export type RateLimits = Record<RateLimitName, RateLimit>;

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

/**
 * Parses `RATE_LIMITS` over the defaults. Returns the limits, or the problems (every bad entry).
 * `oauthTokenMax` is the older `OAUTH_RATE_LIMIT`, still honoured unless `RATE_LIMITS` names `oauth_token`.
 */
export function parseRateLimits(
  text: string | undefined,
  oauthTokenMax?: number,
): { limits: RateLimits; problems: string[] } {
  const limits: RateLimits = { ...RATE_LIMIT_DEFAULTS };
  if (oauthTokenMax !== undefined) limits.oauth_token = { max: oauthTokenMax, windowMs: 60_000 };
  const problems: string[] = [];
  for (const entry of (text ?? '').split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const match = /^([a-z_]+)\s*=\s*([0-9]+)\s*\/\s*([0-9]*)\s*(s|m|h)$/.exec(entry);
    if (!match) {
      problems.push(`RATE_LIMITS: "${entry}" is not name=count/window (for example login=10/1m)`);
      continue;
    }
    const [, name, count, amount, unit] = match as unknown as [
      string,
      string,
      string,
      string,
      's' | 'm' | 'h',
    ];
    if (!(name in RATE_LIMIT_DEFAULTS)) {
      problems.push(
        `RATE_LIMITS: unknown limit "${name}" (known: ${Object.keys(RATE_LIMIT_DEFAULTS).join(', ')})`,
      );
      continue;
    }
    const max = Number(count);
    const windowMs = (amount === '' ? 1 : Number(amount)) * UNIT_MS[unit];
    if (max < 1 || windowMs < 1_000 || windowMs > 24 * 3_600_000) {
      problems.push(`RATE_LIMITS: "${entry}" needs a count of at least 1 and a window from 1s to 24h`);
      continue;
    }
    limits[name as RateLimitName] = { max, windowMs };
  }
  return { limits, problems };
}
