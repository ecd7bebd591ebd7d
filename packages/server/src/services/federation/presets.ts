import { createPrivateKey } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import { z } from 'zod';
import type { OAuth2Settings } from './oauth2Provider.js';
import { loadTrustAnchor } from './platform/gameCenter.js';
import { STEAM_OP_ENDPOINT, STEAM_WEB_API_URL } from './steam/steamProvider.js';
import type { ProviderConfig } from './upstreamProvider.js';

/**
 * Presets for the providers games ask for (decisions §8; set-up in docs/federation.md#providers). An
 * `IDENTITY_PROVIDERS` entry names one with `preset`, or by its `id` when it has no `kind`:
 * `{"id": "google", "client_id": "…", "client_secret": "…"}` is enough. A preset fills in the kind, the
 * issuer or endpoints, the scopes and the name; any field given explicitly overrides it.
 */
export type PresetName = 'google' | 'apple' | 'discord' | 'steam';

/** One resolved entry: the contract's fields plus the kind-specific ones a preset may set. */
export type ResolvedProviderConfig = ProviderConfig &
  OAuth2Settings & {
    /** The preset it came from, if any. */
    preset?: PresetName;
    /** `apple`: the authorization response is POSTed to the callback (`response_mode=form_post`). */
    response_mode?: 'query' | 'form_post';
  };

export const APPLE_ISSUER = 'https://appleid.apple.com';

const PRESETS: Record<PresetName, Partial<ResolvedProviderConfig>> = {
  google: {
    kind: 'oidc',
    name: 'Google',
    issuer: 'https://accounts.google.com',
    scopes: ['openid', 'email', 'profile'],
  },
  apple: {
    kind: 'oidc',
    name: 'Apple',
    issuer: APPLE_ISSUER,
    scopes: ['name', 'email'],
    response_mode: 'form_post',
  },
  discord: {
    kind: 'oauth2',
    name: 'Discord',
    authorization_endpoint: 'https://discord.com/oauth2/authorize',
    token_endpoint: 'https://discord.com/api/oauth2/token',
    userinfo_endpoint: 'https://discord.com/api/users/@me',
    scopes: ['identify', 'email'],
    token_endpoint_auth_method: 'client_secret_post',
  },
  steam: {
    kind: 'steam',
    name: 'Steam',
    client_id: '',
    op_endpoint: STEAM_OP_ENDPOINT,
    web_api_url: STEAM_WEB_API_URL,
  },
};

/** A configuration entry that cannot work; `problems` lists every reason, each naming the field. */
export class ProviderConfigError extends Error {
  constructor(readonly problems: string[]) {
    // One line: the configuration's own error lists it beside its other problems.
    super(problems.join('; '));
    this.name = 'ProviderConfigError';
  }
}

/** Values from the environment a preset uses (STEAM_WEB_API_KEY), passed in by the configuration. */
export interface PresetEnvironment {
  steamWebApiKey?: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
/** https, or http to a loopback host (local and test upstreams only). */
const endpointUrl = z
  .string()
  .refine((v) => URL.canParse(v), 'must be an absolute URL')
  .refine((v) => {
    const u = new URL(v);
    return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK.has(u.hostname));
  }, 'must use https (http only to localhost)');
const nonEmpty = z.string().trim().min(1, 'must not be empty');

const entrySchema = z
  .object({
    // It is a path segment of the callback URL (`/v1/federation/{id}/callback`).
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be 1–64 of a-z, 0-9, "-", "_"'),
    preset: z.enum(['google', 'apple', 'discord', 'steam']).optional(),
    kind: z
      .enum(['oidc', 'oauth2', 'steam', 'steam_ticket', 'epic', 'game_center', 'google_play_games'])
      .optional(),
    name: nonEmpty.max(64).optional(),
    client_id: nonEmpty.optional(),
    client_ids: z.array(nonEmpty).optional(),
    client_secret: nonEmpty.optional(),
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope token')).optional(),
    issuer: endpointUrl.optional(),
    authorization_endpoint: endpointUrl.optional(),
    token_endpoint: endpointUrl.optional(),
    userinfo_endpoint: endpointUrl.optional(),
    token_endpoint_auth_method: z.enum(['client_secret_post', 'client_secret_basic']).optional(),
    response_mode: z.enum(['query', 'form_post']).optional(),
    team_id: z
      .string()
      .regex(/^[A-Z0-9]{10}$/, 'must be the 10-character Apple team id')
      .optional(),
    key_id: z
      .string()
      .regex(/^[A-Z0-9]{10}$/, 'must be the 10-character Apple key id')
      .optional(),
    private_key: nonEmpty.optional(),
    op_endpoint: endpointUrl.optional(),
    web_api_key: nonEmpty.optional(),
    web_api_url: endpointUrl.optional(),
    // Platform sign-in inside the game (decisions §9, platform/platformProvider.ts).
    app_id: z
      .union([
        z.string().regex(/^\d{1,10}$/, 'must be the Steam app id (digits)'),
        z.number().int().positive(),
      ])
      .transform((v) => String(v))
      .optional(),
    identity: z
      .string()
      .regex(/^[\x21-\x7e]{1,64}$/, 'must be 1–64 printable characters without spaces')
      .optional(),
    api_base_url: endpointUrl.optional(),
    allow_vac_banned: z.boolean().optional(),
    jwks_uri: endpointUrl.optional(),
    bundle_id: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,255}$/, "must be the app's bundle id")
      .optional(),
    bundle_ids: z.array(z.string().regex(/^[A-Za-z0-9.-]{1,255}$/, 'must be a bundle id')).optional(),
    trust_anchor: nonEmpty.optional(),
    public_key_host: z
      .string()
      .refine(
        (v) => v === 'apple.com' || v.endsWith('.apple.com') || LOOPBACK.has(v),
        'must be apple.com or one of its subdomains (a loopback host only for local tries)',
      )
      .optional(),
  })
  .strict();

const PLATFORM_DEFAULT_NAMES: Record<string, string> = {
  steam_ticket: 'Steam',
  epic: 'Epic Games',
  game_center: 'Game Center',
  google_play_games: 'Google Play Games',
};

/** A .p8 key pasted into JSON often arrives with literal `\n`; PEM needs real line breaks. */
const pem = (key: string): string => (key.includes('\\n') ? key.replace(/\\n/g, '\n') : key).trim();

/**
 * Resolves one `IDENTITY_PROVIDERS` entry: validates it, applies its preset, and checks that what its kind
 * needs is there. Throws ProviderConfigError naming every problem.
 */
export function applyPreset(raw: unknown, env: PresetEnvironment = {}): ResolvedProviderConfig {
  const label = `identity provider ${JSON.stringify((raw as { id?: unknown } | null)?.id ?? '?')}`;
  const parsed = entrySchema.safeParse(raw);
  if (!parsed.success) {
    throw new ProviderConfigError(
      parsed.error.issues.map(
        (i) => `${label}: ${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`,
      ),
    );
  }
  const entry = parsed.data;
  const preset =
    entry.preset ??
    (entry.kind === undefined && Object.hasOwn(PRESETS, entry.id) ? (entry.id as PresetName) : undefined);
  const explicit = Object.fromEntries(Object.entries(entry).filter(([, v]) => v !== undefined));
  const merged = {
    ...(preset ? PRESETS[preset] : {}),
    ...explicit,
    ...(preset ? { preset } : {}),
  } as Partial<ResolvedProviderConfig & { preset?: PresetName }>;
  if (merged.kind === 'steam' && merged.web_api_key === undefined && env.steamWebApiKey) {
    merged.web_api_key = env.steamWebApiKey;
  }
  if (merged.private_key !== undefined) merged.private_key = pem(merged.private_key);

  const problems: string[] = [];
  const need = (...fields: (keyof ResolvedProviderConfig)[]) => {
    for (const field of fields) {
      if (merged[field] === undefined)
        problems.push(`${label}: ${field} is required for ${preset ?? merged.kind}`);
    }
  };
  switch (merged.kind) {
    case undefined:
      problems.push(
        `${label}: kind is required (oidc, oauth2, steam, steam_ticket, epic, game_center or google_play_games), or a preset (google, apple, discord, steam)`,
      );
      break;
    case 'oidc':
      need('issuer', 'client_id');
      if (preset === 'apple' && merged.client_secret === undefined) {
        need('team_id', 'key_id', 'private_key');
        if (merged.private_key !== undefined) {
          const keyProblem = appleKeyProblem(merged.private_key);
          if (keyProblem) problems.push(`${label}: private_key ${keyProblem}`);
        }
      } else if (preset === 'google') {
        need('client_secret');
      }
      break;
    case 'oauth2':
      need('client_id', 'client_secret', 'authorization_endpoint', 'token_endpoint', 'userinfo_endpoint');
      break;
    case 'steam':
      break;
    case 'steam_ticket':
      need('app_id', 'web_api_key', 'identity');
      break;
    case 'epic':
      need('client_id');
      break;
    case 'game_center':
      need('bundle_id');
      if (merged.trust_anchor !== undefined) {
        const anchorProblem = trustAnchorProblem(merged.trust_anchor);
        if (anchorProblem) problems.push(`${label}: trust_anchor ${anchorProblem}`);
      }
      break;
    case 'google_play_games':
      need('client_id', 'client_secret');
      break;
  }
  if (problems.length > 0) throw new ProviderConfigError(problems);

  const config = {
    ...merged,
    name: merged.name ?? PLATFORM_DEFAULT_NAMES[merged.kind ?? ''] ?? entry.id,
    client_id: merged.client_id ?? '',
  } as ResolvedProviderConfig;
  if (config.kind === 'oidc') {
    // The web client's audience plus any native ones (iOS, Android), once each.
    config.client_ids = [...new Set([config.client_id, ...(config.client_ids ?? [])])];
  }
  return config;
}

/** Resolves the whole `IDENTITY_PROVIDERS` list: every entry, with ids unique. */
export function applyPresets(raw: unknown, env: PresetEnvironment = {}): ResolvedProviderConfig[] {
  if (!Array.isArray(raw)) throw new ProviderConfigError(['IDENTITY_PROVIDERS must be a JSON array']);
  const problems: string[] = [];
  const configs: ResolvedProviderConfig[] = [];
  const seen = new Set<string>();
  raw.forEach((entry: unknown, index) => {
    try {
      const config = applyPreset(entry, env);
      if (seen.has(config.id)) problems.push(`identity provider "${config.id}": id is used twice`);
      seen.add(config.id);
      configs.push(config);
    } catch (err) {
      if (!(err instanceof ProviderConfigError)) throw err;
      problems.push(...err.problems.map((p) => `IDENTITY_PROVIDERS[${index}] ${p}`));
    }
  });
  if (problems.length > 0) throw new ProviderConfigError(problems);
  return configs;
}

function trustAnchorProblem(value: string): string | undefined {
  try {
    loadTrustAnchor(value);
    return undefined;
  } catch (err) {
    return `must be PEM certificates or @file naming them (${(err as Error).message})`;
  }
}

function appleKeyProblem(privateKey: string): string | undefined {
  try {
    const key = createPrivateKey({ key: privateKey, format: 'pem' });
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      return 'must be the P-256 (ES256) key Apple issues (.p8)';
    }
    return undefined;
  } catch {
    return 'must be the PEM contents of the .p8 key file Apple issues';
  }
}

/** Apple accepts a client secret valid for at most six months (15 777 000 s). */
export const APPLE_CLIENT_SECRET_MAX_SECONDS = 15_777_000;
const APPLE_CLIENT_SECRET_SECONDS = 3_600;

/**
 * The client secret Sign in with Apple wants at its token endpoint: an ES256 JWT signed with the
 * team's key, header `kid` = key id, `{iss: team id, iat, exp, aud: https://appleid.apple.com, sub:
 * client id (the Services ID)}`. It lives an hour by default (at most six months, Apple's limit); make
 * one per token request or cache it until shortly before `exp`. `now` is in milliseconds.
 */
export async function appleClientSecret(
  cfg: Pick<ProviderConfig, 'client_id' | 'team_id' | 'key_id' | 'private_key'>,
  now: number,
  lifetimeSeconds = APPLE_CLIENT_SECRET_SECONDS,
): Promise<string> {
  if (!cfg.team_id || !cfg.key_id || !cfg.private_key) {
    throw new Error('an Apple client secret needs team_id, key_id and private_key');
  }
  const lifetime = Math.min(Math.max(1, Math.floor(lifetimeSeconds)), APPLE_CLIENT_SECRET_MAX_SECONDS);
  const key = await importPKCS8(pem(cfg.private_key), 'ES256');
  const iat = Math.floor(now / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: cfg.key_id })
    .setIssuer(cfg.team_id)
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifetime)
    .setAudience(APPLE_ISSUER)
    .setSubject(cfg.client_id)
    .sign(key);
}
