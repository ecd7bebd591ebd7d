import type { OAuthClient } from '../../stores/clientStore.js';
import type { RefreshTokenRecord } from '../../stores/oauthGrantStore.js';
import { revokeGrant } from './grantRevocation.js';
import { invalidGrant } from './oauthErrors.js';
import {
  issuedTokens,
  refreshRecord,
  type IssuedTokens,
  type OAuthGrantContext,
} from './oauthGrantContext.js';
import { newOpaqueToken, sha256Hex } from './opaqueToken.js';

/**
 * A refresh token presented again within this window after its rotation, while its successor is
 * still unused, gets that same successor back (two workers refreshing at once) instead of
 * triggering reuse detection.
 */
export const REFRESH_GRACE_MS = 5_000;

/** The successor pair, sealed beside the rotated token so a grace-window retry gets the same pair back. */
interface SealedSuccessor {
  access_token: string;
  refresh_token: string;
  /** Access token expiry, seconds since the epoch. */
  exp: number;
}

const successorAad = (oldHash: string) => `refresh_successor:${oldHash}`;

/** The client presenting a refresh token, as its caller authenticated it (it is not read again). */
export type RefreshingClient = Pick<OAuthClient, 'clientId' | 'dapp'>;

/** `grant_type=refresh_token`: rotation with reuse detection and a short grace for concurrent refreshes. */
export async function refresh(
  context: OAuthGrantContext,
  input: { client: RefreshingClient; refreshToken: string },
): Promise<IssuedTokens> {
  const oldHash = sha256Hex(input.refreshToken);
  const row = await context.grants.findRefreshToken(oldHash);
  if (!row) throw invalidGrant('refresh_token_unknown', 'The refresh token is invalid');
  if (row.clientId !== input.client.clientId) {
    throw invalidGrant('client_mismatch', 'The refresh token was issued to another client');
  }
  const grant = await context.grants.findGrant(row.grantId);
  if (!grant || grant.revokedAt !== null)
    throw invalidGrant('grant_revoked', 'The refresh token has been revoked');
  if (row.usedAt !== null) return graceOrReuse(context, input.client, row);
  const now = context.now();
  if (row.expiresAt <= now) throw invalidGrant('refresh_token_expired', 'The refresh token has expired');

  const successorToken = newOpaqueToken();
  const access = await context.tokens.issueAccessToken({
    userId: String(row.userUuid),
    clientId: row.clientId,
    grantId: row.grantId,
    scope: grant.oidc?.scope,
  });
  const sealed: SealedSuccessor = {
    access_token: access.token,
    refresh_token: successorToken,
    exp: access.exp,
  };
  const outcome = await context.grants.rotateRefreshToken({
    oldHash,
    now,
    successor: refreshRecord(successorToken, row.grantId, row.clientId, row.userUuid, now),
    successorSealed: context.secretBox.seal(JSON.stringify(sealed), successorAad(oldHash)),
  });
  if (outcome === 'lost') {
    const current = await context.grants.findRefreshToken(oldHash);
    if (!current || current.usedAt === null)
      throw invalidGrant('grant_revoked', 'The refresh token has been revoked');
    return graceOrReuse(context, input.client, current);
  }
  return issuedTokens(
    context,
    input.client,
    row,
    { accessToken: access.token, refreshToken: successorToken, expiresIn: access.expiresIn },
    grant.oidc,
  );
}

/** A used refresh token: its successor again within the grace window, else reuse, which revokes the grant. */
async function graceOrReuse(
  context: OAuthGrantContext,
  client: RefreshingClient,
  row: RefreshTokenRecord,
): Promise<IssuedTokens> {
  const now = context.now();
  const withinGrace = row.usedAt !== null && now - row.usedAt <= REFRESH_GRACE_MS;
  if (withinGrace && row.successorHash && row.successorSealed) {
    const successor = await context.grants.findRefreshToken(row.successorHash);
    const grant = await context.grants.findGrant(row.grantId);
    if (successor && successor.usedAt === null && grant && grant.revokedAt === null) {
      const opened = context.secretBox.open(row.successorSealed, successorAad(row.tokenHash));
      let sealed: SealedSuccessor;
      try {
        sealed = JSON.parse(opened.toString('utf8')) as SealedSuccessor;
      } finally {
        opened.fill(0);
      }
      const expiresIn = Math.max(0, sealed.exp - Math.floor(now / 1000));
      return issuedTokens(
        context,
        client,
        row,
        { accessToken: sealed.access_token, refreshToken: sealed.refresh_token, expiresIn },
        grant.oidc,
      );
    }
  }
  await revokeGrant(context, row.grantId, 'refresh_token_reuse');
  await context.grants.clearSuccessor(row.tokenHash);
  throw invalidGrant(
    'refresh_token_reused',
    'The refresh token was already used; every token of its grant is revoked',
  );
}
