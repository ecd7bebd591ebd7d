import { GuestRequestError, MalformedResponseError } from '../errors.js';
import type { JsonObject } from '../losslessJson.js';
import type { ApiContext } from './apiContext.js';
import { callService } from './serviceCall.js';

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
export async function createGuest(
  context: ApiContext,
  clientId: string,
  options: { altcha?: string } = {},
): Promise<NewGuest> {
  const body: Record<string, string> = { client_id: clientId };
  // `BOT_CHALLENGE` with `guest`: a solved challenge (`solveBotChallenge`), used once.
  if (options.altcha !== undefined) body.altcha = options.altcha;
  const object = await call(context, '/v1/dev-user/guest', body);
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

function call(
  context: ApiContext,
  path: string,
  body: Record<string, string>,
  bearer?: string,
): Promise<JsonObject> {
  return callService(
    context,
    'POST',
    path,
    { body, requireSuccess: true, ...(bearer === undefined ? {} : { bearer }) },
    (refusal) => new GuestRequestError(refusal.responseStatus, refusal.errorCode, refusal.message),
  );
}
