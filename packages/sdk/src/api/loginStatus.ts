import { MalformedResponseError, StatusRequestError } from '../errors.js';
import { parseJson, stringifyJson } from '../losslessJson.js';
import type { JsonValue } from '../losslessJson.js';
import { send } from './apiContext.js';
import type { ApiContext } from './apiContext.js';

/** The login status result (spec, Resources › Login status result). */
export interface LoginStatus {
  success: boolean;
  message: string;
  user_id: string;
  status: 'logged_in' | 'logged_out';
  /** Whether the user's OAuth rights may be listed on the marketplace (only when logged out). */
  transfer_enabled?: boolean;
  /** ISO 8601 UTC. */
  timestamp: string;
}

export interface LoginStatusParameters {
  /** The user's access token for this app. */
  accessToken: string;
  userId: string;
}

/** `POST /v1/oauth/status/login` or `/logout`. */
export async function updateLoginStatus(
  context: ApiContext,
  clientId: string,
  transition: 'login' | 'logout',
  parameters: LoginStatusParameters,
): Promise<LoginStatus> {
  const response = await send(context, `/v1/oauth/status/${transition}`, {
    method: 'POST',
    bearer: parameters.accessToken,
    json: stringifyJson({ user_id: parameters.userId, client_id: clientId }),
  });
  return readLoginStatus(response.body, response.status);
}

/** `GET /v1/oauth/status/check`. */
export async function checkLoginStatus(
  context: ApiContext,
  clientId: string,
  parameters: LoginStatusParameters,
): Promise<LoginStatus> {
  const query = new URLSearchParams({ user_id: parameters.userId, client_id: clientId });
  const response = await send(context, `/v1/oauth/status/check?${query.toString()}`, {
    method: 'GET',
    bearer: parameters.accessToken,
  });
  return readLoginStatus(response.body, response.status);
}

function readLoginStatus(body: string, responseStatus: number): LoginStatus {
  let parsed: JsonValue | undefined;
  try {
    parsed = parseJson(body);
  } catch {
    parsed = undefined;
  }
  const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : undefined;
  const ok = responseStatus >= 200 && responseStatus < 300 && object?.success === true;
  if (!ok) {
    // Failures use the service's error body {success: false, error, message} (decisions §2).
    const errorCode = typeof object?.error === 'string' ? object.error : undefined;
    const message = typeof object?.message === 'string' ? object.message : 'no error message';
    throw new StatusRequestError(responseStatus, errorCode, message);
  }
  const { message, user_id, status, transfer_enabled, timestamp } = object;
  if (
    typeof message !== 'string' ||
    typeof user_id !== 'string' ||
    (status !== 'logged_in' && status !== 'logged_out') ||
    typeof timestamp !== 'string' ||
    (transfer_enabled !== undefined && typeof transfer_enabled !== 'boolean')
  ) {
    throw new MalformedResponseError('login status result has missing or mistyped fields', responseStatus);
  }
  const result: LoginStatus = { success: true, message, user_id, status, timestamp };
  if (transfer_enabled !== undefined) result.transfer_enabled = transfer_enabled;
  return result;
}
