import { DeviceFlowError, MalformedResponseError } from '../errors.js';
import type { ClientCredentials } from './getToken.js';
import { send } from './apiContext.js';
import type { ApiContext } from './apiContext.js';

/** RFC 8628's device-code grant type. */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** What `POST /oauth/device_authorization` answers: show `userCode` and `verificationUri` to the player. */
export interface DeviceAuthorization {
  deviceCode: string;
  /** `XXXX-XXXX`: eight letters the player types on their phone. */
  userCode: string;
  verificationUri: string;
  /** `verificationUri` with the code in it: for a QR code. */
  verificationUriComplete: string;
  /** Seconds the codes live. */
  expiresIn: number;
  /** Seconds to wait between polls. */
  interval: number;
}

/** The tokens of an approved device: the code flow's (an `idToken` when `openid` was in the scope). */
export interface DeviceTokens {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  refreshToken: string;
  userId: string;
  idToken?: string;
  contentAddress?: string;
}

export interface PollDeviceTokenOptions {
  /** Ends the polling early (the player cancelled on the device). */
  signal?: AbortSignal;
  /** How to wait between polls; `setTimeout` by default (tests and custom schedulers pass their own). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const basic = (c: ClientCredentials) =>
  `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;

function parseObject(body: string, status: number): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (cause) {
    throw new MalformedResponseError('body is not JSON', status, { cause });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MalformedResponseError('body is not a JSON object', status);
  }
  return parsed as Record<string, unknown>;
}

function refusal(body: Record<string, unknown>, status: number): DeviceFlowError {
  const code = typeof body.error === 'string' ? body.error : undefined;
  const message = typeof body.error_description === 'string' ? body.error_description : `HTTP ${status}`;
  return new DeviceFlowError(status, code, message);
}

const text = (body: Record<string, unknown>, name: string, status: number): string => {
  const value = body[name];
  if (typeof value !== 'string' || value === '')
    throw new MalformedResponseError(`${name} is missing`, status);
  return value;
};
const seconds = (body: Record<string, unknown>, name: string, status: number): number => {
  const value = body[name];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new MalformedResponseError(`${name} is not a number of seconds`, status);
  }
  return value;
};

/** `POST /oauth/device_authorization` (RFC 8628 §3.1) with HTTP Basic client authentication. */
export async function startDeviceAuthorization(
  context: ApiContext,
  credentials: ClientCredentials,
  scope?: string,
): Promise<DeviceAuthorization> {
  const response = await send(context, '/oauth/device_authorization', {
    method: 'POST',
    authorization: basic(credentials),
    json: JSON.stringify(scope === undefined ? {} : { scope }),
  });
  const body = parseObject(response.body, response.status);
  if (response.status !== 200) throw refusal(body, response.status);
  return {
    deviceCode: text(body, 'device_code', response.status),
    userCode: text(body, 'user_code', response.status),
    verificationUri: text(body, 'verification_uri', response.status),
    verificationUriComplete: text(body, 'verification_uri_complete', response.status),
    expiresIn: seconds(body, 'expires_in', response.status),
    interval: body.interval === undefined ? 5 : seconds(body, 'interval', response.status),
  };
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * Polls `/oauth/token` with the device code (RFC 8628 §3.4–3.5) until the player decided: waits
 * `interval` seconds before each poll, 5 s more after every `slow_down` (or the interval the answer
 * names, whichever is longer). Resolves with the tokens; rejects with `DeviceFlowError`
 * (`access_denied`, `expired_token`, `invalid_grant`, …), or the signal's reason.
 */
export async function pollDeviceToken(
  context: ApiContext,
  credentials: ClientCredentials,
  authorization: Pick<DeviceAuthorization, 'deviceCode' | 'interval'>,
  options: PollDeviceTokenOptions = {},
): Promise<DeviceTokens> {
  const sleep = options.sleep ?? defaultSleep;
  let interval = Math.max(1, authorization.interval);
  for (;;) {
    await sleep(interval * 1000, options.signal);
    const response = await send(context, '/oauth/token', {
      method: 'POST',
      authorization: basic(credentials),
      json: JSON.stringify({ grant_type: DEVICE_CODE_GRANT_TYPE, device_code: authorization.deviceCode }),
      signal: options.signal,
    });
    const body = parseObject(response.body, response.status);
    if (response.status === 200) {
      return {
        accessToken: text(body, 'access_token', response.status),
        tokenType: 'Bearer',
        expiresIn: seconds(body, 'expires_in', response.status),
        refreshToken: text(body, 'refresh_token', response.status),
        userId: text(body, 'user_id', response.status),
        ...(typeof body.id_token === 'string' ? { idToken: body.id_token } : {}),
        ...(typeof body.content_address === 'string' ? { contentAddress: body.content_address } : {}),
      };
    }
    if (body.error === 'authorization_pending') continue;
    if (body.error === 'slow_down') {
      const named = typeof body.interval === 'number' ? body.interval : 0;
      interval = Math.max(interval + 5, named);
      continue;
    }
    throw refusal(body, response.status);
  }
}
