import { GuestRequestError, MalformedResponseError } from '../errors.js';
import { parseJson, stringifyJson, type JsonValue } from '../losslessJson.js';
import { send, type ApiContext } from './apiContext.js';

/** A guest's session: a login JWT bound to the app (`azp`) and the account's uuid. */
export interface GuestSession {
  token: string;
  uuid: string;
}

/** A new guest: its session and the secret the game keeps on the device (shown this once). */
export interface NewGuest extends GuestSession {
  guestSecret: string;
}

export interface GuestUpgrade {
  email: string;
  password: string;
  nickname?: string;
}

/** `POST /v1/dev-user/guest` (docs/players.md). */
export async function createGuest(context: ApiContext, clientId: string): Promise<NewGuest> {
  const object = await call(context, '/v1/dev-user/guest', { client_id: clientId });
  const { token, uuid, guest_secret } = object;
  if (typeof token !== 'string' || typeof uuid !== 'string' || typeof guest_secret !== 'string') {
    throw new MalformedResponseError('guest creation result has missing or mistyped fields');
  }
  return { token, uuid, guestSecret: guest_secret };
}

/** `POST /v1/dev-user/guest/login`. */
export async function guestLogin(
  context: ApiContext,
  uuid: string,
  guestSecret: string,
): Promise<GuestSession> {
  const object = await call(context, '/v1/dev-user/guest/login', { uuid, guest_secret: guestSecret });
  if (typeof object.token !== 'string' || typeof object.uuid !== 'string') {
    throw new MalformedResponseError('guest login result has missing or mistyped fields');
  }
  return { token: object.token, uuid: object.uuid };
}

/** `POST /v1/dev-user/guest/upgrade` with the guest's login JWT: same uuid, now e-mail and password. */
export async function upgradeGuest(
  context: ApiContext,
  token: string,
  upgrade: GuestUpgrade,
): Promise<string> {
  const body: Record<string, string> = { email: upgrade.email, password: upgrade.password };
  if (upgrade.nickname !== undefined) body.nickname = upgrade.nickname;
  const object = await call(context, '/v1/dev-user/guest/upgrade', body, token);
  if (typeof object.uuid !== 'string') {
    throw new MalformedResponseError('guest upgrade result has missing or mistyped fields');
  }
  return object.uuid;
}

async function call(
  context: ApiContext,
  path: string,
  body: Record<string, string>,
  bearer?: string,
): Promise<Record<string, JsonValue>> {
  const response = await send(context, path, {
    method: 'POST',
    json: stringifyJson(body),
    ...(bearer === undefined ? {} : { bearer }),
  });
  let parsed: JsonValue | undefined;
  try {
    parsed = parseJson(response.body);
  } catch {
    parsed = undefined;
  }
  const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : undefined;
  if (response.status < 200 || response.status >= 300 || object?.success !== true) {
    // Failures use the service's error body {success: false, error, message} (decisions §2).
    throw new GuestRequestError(
      response.status,
      typeof object?.error === 'string' ? object.error : undefined,
      typeof object?.message === 'string' ? object.message : 'no error message',
    );
  }
  return object;
}
