import { federationError, MalformedResponseError } from '../errors.js';
import type { JsonObject } from '../losslessJson.js';
import type { ApiContext } from './apiContext.js';
import { throwIfMfaRequired } from './mfa.js';
import { callService, idMember, textMember, type ServiceCallOptions } from './serviceCall.js';

/** A native sign-in with an upstream id_token: a login JWT bound to the app, and whether it made the account. */
export interface FederatedLogin {
  token: string;
  uuid: string;
  /** True when this sign-in created the account (its first sign-in with that identity). */
  created: boolean;
}

/** An upstream identity linked to the account: (provider, subject) is what signs in. */
export interface LinkedIdentity {
  id: string;
  /** The provider's id in `IDENTITY_PROVIDERS`, e.g. `google`. */
  provider: string;
  /** Its display name, e.g. `Google`. */
  providerName: string;
  /** The upstream `sub` (a Steam id for `steam`). */
  subject: string;
  /** The upstream e-mail when it sent one, else null. */
  email: string | null;
  /** ISO 8601 UTC. */
  createdAt: string;
}

const refuse = (r: { responseStatus: number; errorCode: string | undefined; message: string }) =>
  federationError(r.responseStatus, r.errorCode, r.message);

const call = (
  context: ApiContext,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  options: ServiceCallOptions,
) => callService(context, method, path, options, refuse);

/**
 * `POST /v1/dev-user/federated-login {provider, id_token, client_id}`; `MfaRequiredError` for an account
 * with a second factor.
 */
export async function federatedLogin(
  context: ApiContext,
  clientId: string,
  provider: string,
  idToken: string,
): Promise<FederatedLogin> {
  const object = await call(context, 'POST', '/v1/dev-user/federated-login', {
    body: { provider, id_token: idToken, client_id: clientId },
    requireSuccess: true,
  });
  throwIfMfaRequired(object);
  const what = 'federated login result';
  if (typeof object.created !== 'boolean')
    throw new MalformedResponseError(`${what}: created is not a boolean`);
  return {
    token: textMember(object, 'token', what),
    uuid: idMember(object, 'uuid', what),
    created: object.created,
  };
}

/**
 * A platform credential, as the game got it from its platform's SDK (decisions §9):
 * `{ticket}` (hex) for `steam_ticket`, `{id_token}` for `epic`, `{public_key_url, signature, salt,
 * timestamp, team_player_id, bundle_id}` for `game_center`, `{server_auth_code}` for `google_play_games`.
 */
export type PlatformCredential =
  | { ticket: string }
  | { id_token: string }
  | {
      public_key_url: string;
      signature: string;
      salt: string;
      timestamp: number;
      team_player_id: string;
      bundle_id: string;
    }
  | { server_auth_code: string };

/**
 * `POST /v1/dev-user/platform-login {provider, client_id, credential}`; `MfaRequiredError` for an
 * account with a second factor.
 */
export async function platformLogin(
  context: ApiContext,
  clientId: string,
  provider: string,
  credential: PlatformCredential,
): Promise<FederatedLogin> {
  const object = await call(context, 'POST', '/v1/dev-user/platform-login', {
    body: { provider, client_id: clientId, credential },
    requireSuccess: true,
  });
  throwIfMfaRequired(object);
  const what = 'platform login result';
  if (typeof object.created !== 'boolean')
    throw new MalformedResponseError(`${what}: created is not a boolean`);
  return {
    token: textMember(object, 'token', what),
    uuid: idMember(object, 'uuid', what),
    created: object.created,
  };
}

/** `GET /v1/dev-user/identities` with the account's login JWT. */
export async function listIdentities(context: ApiContext, loginToken: string): Promise<LinkedIdentity[]> {
  const object = await call(context, 'GET', '/v1/dev-user/identities', { bearer: loginToken });
  const { identities } = object;
  if (!Array.isArray(identities)) throw new MalformedResponseError('identities is not an array');
  return identities.map((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new MalformedResponseError('an identity is not an object');
    }
    return readIdentity(item);
  });
}

/** `POST /v1/dev-user/identities {provider, id_token}`: links an upstream identity to the signed-in account. */
export async function linkIdentity(
  context: ApiContext,
  loginToken: string,
  provider: string,
  idToken: string,
): Promise<LinkedIdentity> {
  const object = await call(context, 'POST', '/v1/dev-user/identities', {
    body: { provider, id_token: idToken },
    bearer: loginToken,
  });
  // The identity itself, or wrapped as {identity} by a service that adds `success`.
  const identity = object.identity;
  return readIdentity(
    identity !== null && typeof identity === 'object' && !Array.isArray(identity) ? identity : object,
  );
}

/**
 * `DELETE /v1/dev-user/identities/{id}`: refused with `FirstPartyRequiredError` for a JWT other than the
 * console's, `LastSignInMethodError` for the last way in.
 */
export async function unlinkIdentity(
  context: ApiContext,
  loginToken: string,
  identityId: string,
): Promise<void> {
  if (typeof identityId !== 'string' || identityId === '') throw new TypeError('identityId is required');
  await call(context, 'DELETE', `/v1/dev-user/identities/${encodeURIComponent(identityId)}`, {
    bearer: loginToken,
    requireSuccess: true,
  });
}

function readIdentity(object: JsonObject): LinkedIdentity {
  const what = 'identity';
  const email = object.email;
  if (email !== undefined && email !== null && typeof email !== 'string') {
    throw new MalformedResponseError('identity: email is not a string');
  }
  return {
    id: idMember(object, 'id', what),
    provider: textMember(object, 'provider', what),
    providerName:
      typeof object.provider_name === 'string' ? object.provider_name : textMember(object, 'provider', what),
    subject: textMember(object, 'subject', what),
    email: email ?? null,
    createdAt: textMember(object, 'created_at', what),
  };
}
