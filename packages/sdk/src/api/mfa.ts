import { loginMfaError, MalformedResponseError, MfaRequiredError } from '../errors.js';
import type { JsonObject } from '../losslessJson.js';
import type { ApiContext } from './apiContext.js';
import { callService, idMember, textMember } from './serviceCall.js';

/** A sign-in's session: a login JWT (bound as the first step was) and the account's uuid. */
export interface LoginSession {
  token: string;
  uuid: string;
}

/**
 * Throws `MfaRequiredError` when a sign-in answer is the first of two steps (`mfa_required: true`,
 * docs/mfa.md): such an answer has no token, and reading it as a session would not be signed in.
 */
export function throwIfMfaRequired(object: Record<string, unknown>, status = 200): void {
  if (object.mfa_required !== true) return;
  const { mfa_token: mfaToken, methods, expires_in: expiresIn, created } = object;
  if (
    typeof mfaToken !== 'string' ||
    mfaToken === '' ||
    !Array.isArray(methods) ||
    !methods.every((method) => typeof method === 'string')
  ) {
    throw new MalformedResponseError('mfa_required without mfa_token or methods', status);
  }
  throw new MfaRequiredError(
    mfaToken,
    methods as string[],
    typeof expiresIn === 'number' ? expiresIn : undefined,
    typeof created === 'boolean' ? created : undefined,
  );
}

/** `POST /v1/dev-user/login/mfa {mfa_token, code}`: the second step, the session. */
export async function loginMfa(context: ApiContext, mfaToken: string, code: string): Promise<LoginSession> {
  if (typeof mfaToken !== 'string' || mfaToken === '') throw new TypeError('mfaToken is required');
  if (typeof code !== 'string' || code === '') throw new TypeError('code is required');
  const object: JsonObject = await callService(
    context,
    'POST',
    '/v1/dev-user/login/mfa',
    { body: { mfa_token: mfaToken, code }, requireSuccess: true },
    (r) => loginMfaError(r.responseStatus, r.errorCode, r.message),
  );
  const what = 'second sign-in step result';
  return { token: textMember(object, 'token', what), uuid: idMember(object, 'uuid', what) };
}
