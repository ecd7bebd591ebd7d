import type { CodeRecord, GrantRecord, OidcGrant } from '../../stores/oauthGrantStore.js';
import { timeOrderedUuid } from '../../crypto/timeOrderedUuid.js';
import type { OAuthClient } from '../../stores/clientStore.js';
import { deviceOrigin } from '../accountSessions/device.js';
import type { RequestContext } from '../security/requestContext.js';
import { revokeGrant } from './grantRevocation.js';
import { invalidGrant } from './oauthErrors.js';
import {
  issuedTokens,
  newGrant,
  REFRESH_TOKEN_TTL_MS,
  type IssuedTokens,
  type OAuthGrantContext,
} from './oauthGrantContext.js';
import { newOpaqueToken, sha256Hex } from './opaqueToken.js';
import { isValidCodeVerifier, s256, verifyS256 } from './pkce.js';

/** Codes: single use, 10 minutes (decisions §3). */
export const CODE_TTL_MS = 10 * 60_000;

export interface IssueCodeInput {
  client: Pick<OAuthClient, 'clientId'>;
  userUuid: number;
  redirectUri: string;
  codeChallenge?: string | undefined;
  codeChallengeMethod?: 'S256' | undefined;
  /** Set when the request's scope contains `openid` (docs/oidc.md). */
  oidc?: OidcGrant | undefined;
  /** How the user signed in (RFC 8176), kept on the grant for its `id_token`s and introspection. */
  amr?: readonly string[] | undefined;
  /** The authorizing browser's request: its device and network are kept with the grant (Security page). */
  origin?: RequestContext | undefined;
}

export interface ExchangeCodeInput {
  client: OAuthClient;
  code: string;
  redirectUri: string;
  codeVerifier?: string | undefined;
  /**
   * `client` came from the client cache: the redemption commits only if the stored row still matches it
   * (`ClientService.authenticateThen` retries with the stored row when it does not).
   */
  checkClientAtCommit?: boolean | undefined;
}

/**
 * Issues a code for a user who authorized `client` (the caller has checked the redirect URI is
 * registered and authenticated the user). Creates the grant every later token will belong to.
 */
export async function issueCode(
  context: OAuthGrantContext,
  input: IssueCodeInput,
): Promise<{ code: string; grantId: string; expiresAt: number }> {
  const code = newOpaqueToken();
  const { grant, record } = codeGrantRecords(input, sha256Hex(code), context.now());
  await context.grants.createGrantWithCode(grant, record);
  return { code, grantId: grant.grantId, expiresAt: record.expiresAt };
}

/**
 * The grant and the code record an authorization opens, for the code whose SHA-256 is `codeHash`.
 * The device grant stores them with its approval (its code is derived from the device code).
 */
export function codeGrantRecords(
  input: IssueCodeInput,
  codeHash: string,
  now: number,
): { grant: GrantRecord; record: CodeRecord } {
  // Time-ordered: oauth_grants grows at one edge of its primary-key index (timeOrderedUuid.ts).
  const grantId = timeOrderedUuid(now);
  const amr = input.amr && input.amr.length > 0 ? [...input.amr] : undefined;
  const oidc = input.oidc && amr ? { ...input.oidc, amr } : input.oidc;
  const grant: GrantRecord = {
    ...newGrant(grantId, input.client.clientId, input.userUuid, now),
    oidc,
    amr,
    device: deviceOrigin(input.origin),
  };
  const record: CodeRecord = {
    codeHash,
    grantId,
    clientId: input.client.clientId,
    userUuid: input.userUuid,
    redirectUri: input.redirectUri,
    codeChallenge: input.codeChallenge ?? null,
    codeChallengeMethod: input.codeChallenge ? (input.codeChallengeMethod ?? 'S256') : null,
    createdAt: now,
    expiresAt: now + CODE_TTL_MS,
    usedAt: null,
    oidc,
    amr,
  };
  return { grant, record };
}

/**
 * `grant_type=authorization_code` for an already authenticated client. A code presented a second
 * time fails with `invalid_grant` and revokes every token issued from it.
 */
export async function exchangeCode(
  context: OAuthGrantContext,
  input: ExchangeCodeInput,
): Promise<IssuedTokens> {
  const now = context.now();
  const codeHash = sha256Hex(input.code);
  const presentedChallenge =
    input.codeVerifier === undefined
      ? null
      : isValidCodeVerifier(input.codeVerifier)
        ? s256(input.codeVerifier)
        : undefined;
  // Fast path: one conditional UPDATE checks every binding and consumes the code; the grant's first
  // refresh token is stored in the same commit (it exists exactly when the code was spent).
  const refreshToken = newOpaqueToken();
  const row =
    presentedChallenge === undefined
      ? undefined
      : await context.grants.redeemCode(
          {
            codeHash,
            now,
            clientId: input.client.clientId,
            redirectUri: input.redirectUri,
            codeChallenge: presentedChallenge,
            clientRow: input.checkClientAtCommit
              ? {
                  secretHash: input.client.secretHash,
                  previousSecretHash: input.client.previousSecret?.hash ?? null,
                  previousSecretExpiresAt: input.client.previousSecret?.expiresAt ?? null,
                  dapp: input.client.dapp,
                }
              : undefined,
          },
          { tokenHash: sha256Hex(refreshToken), expiresAt: now + REFRESH_TOKEN_TTL_MS },
        );
  if (!row) throw await codeRefusal(context, codeHash, input, now);

  const access = await context.tokens.issueAccessToken({
    userId: String(row.userUuid),
    clientId: row.clientId,
    grantId: row.grantId,
    scope: row.oidc?.scope,
  });
  return issuedTokens(
    context,
    input.client,
    row,
    { accessToken: access.token, refreshToken, expiresIn: access.expiresIn },
    row.oidc,
  );
}

/** Says why a code was not redeemed (slow path only); a used code revokes its grant. */
async function codeRefusal(
  context: OAuthGrantContext,
  codeHash: string,
  input: ExchangeCodeInput,
  now: number,
): Promise<Error> {
  const row = await context.grants.findCode(codeHash);
  if (!row) return invalidGrant('code_unknown', 'The authorization code is invalid');
  // A stolen code presented by someone else must not burn it: these checks change nothing.
  if (row.clientId !== input.client.clientId) {
    return invalidGrant('client_mismatch', 'The authorization code was issued to another client');
  }
  if (row.usedAt !== null) {
    await revokeGrant(context, row.grantId, 'code_reuse');
    return invalidGrant(
      'code_used',
      'The authorization code was already used; every token issued from it is revoked',
    );
  }
  if (row.expiresAt <= now) return invalidGrant('code_expired', 'The authorization code has expired');
  if (row.redirectUri !== input.redirectUri)
    return invalidGrant('redirect_uri_mismatch', 'redirect_uri mismatch');
  if (row.codeChallenge !== null) {
    if (!input.codeVerifier || !verifyS256(input.codeVerifier, row.codeChallenge)) {
      return invalidGrant('pkce_failed', 'code_verifier is missing or does not match the code_challenge');
    }
  } else if (input.codeVerifier !== undefined) {
    return invalidGrant(
      'pkce_unexpected',
      'code_verifier was sent but the authorization used no code_challenge',
    );
  }
  // Every binding holds and the code is unused: what refused it is its revoked grant.
  return invalidGrant('grant_revoked', 'The authorization was revoked');
}
