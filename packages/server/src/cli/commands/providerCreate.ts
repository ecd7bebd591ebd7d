import { FIRST_PARTY_BINDING } from '../../services/oauth/loginBinding.js';
import {
  type CliCommand,
  type CliValues,
  CommandFailure,
  optionalString,
  passwordOption,
  requiredString,
  UsageError,
} from '../command.js';
import type { ServerApi } from '../serverApi.js';

const PAYLOAD_MODES = ['ctr', 'ctr+gcm', 'gcm'] as const;
const CONSUME_AUTHS = ['none', 'client_secret'] as const;

function choice<T extends string>(values: CliValues, name: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(values, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

/**
 * `dauth provider create`: registers a content provider (a `cuid`) for an app through the running
 * server's `POST /v1/development-api/init_permission_provider`, as the app's owner (the CLI signs in
 * over HTTP, so the login is fresh for the step-up check and the server applies its own rules).
 *
 * Like the console (decisions §7), an app's first provider is created in the strong mode:
 * `payload_mode: gcm` (authenticated payloads, each accepted once) and `consume_auth: client_secret`
 * (the app's HTTP Basic credentials on every consumption). A later cuid of the same app keeps the app's
 * settings unless `--payload-mode` / `--consume-auth` are given. The answer carries the app's keys the
 * first time only: it is a secret, handled like the client secret.
 */
export const providerCreate: CliCommand = {
  path: ['provider', 'create'],
  summary:
    'Register a content provider (cuid) for your app through the running server; the first one is GCM + client_secret, and PRINTS THE SECRET payload keys once',
  usage:
    '--client-id <client_id> --cuid <cuid> --release-per <0-100> --owner-addr <0x…> --owner-email <e-mail> (--password <p> | --password-stdin) [--payload-mode gcm|ctr+gcm|ctr] [--consume-auth client_secret|none] [--server <url>]',
  needs: 'server',
  options: {
    'client-id': { type: 'string' },
    cuid: { type: 'string' },
    'release-per': { type: 'string' },
    'owner-addr': { type: 'string' },
    'owner-email': { type: 'string' },
    password: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    'payload-mode': { type: 'string' },
    'consume-auth': { type: 'string' },
  },
  deprecatedOptions: { email: 'owner-email' },
  async run(values, server: ServerApi, io) {
    const clientId = requiredString(values, 'client-id');
    const cuid = requiredString(values, 'cuid');
    const releasePerText = requiredString(values, 'release-per');
    if (!/^[0-9]{1,3}$/.test(releasePerText) || Number(releasePerText) > 100) {
      throw new UsageError('--release-per must be an integer from 0 to 100');
    }
    const ownerAddr = requiredString(values, 'owner-addr');
    const payloadMode = choice(values, 'payload-mode', PAYLOAD_MODES);
    const consumeAuth = choice(values, 'consume-auth', CONSUME_AUTHS);
    const email = requiredString(values, 'owner-email');
    const password = await passwordOption(values, io);

    const login = (await server.request('POST', '/v1/dev-user/login_devuser', {
      email,
      password,
      // First-party: the CLI's login manages the account and opens no app (docs/security.md).
      client_id: FIRST_PARTY_BINDING,
    })) as {
      token: string;
    };
    const firstProvider = await isFirstProvider(server, clientId, login.token);
    const settings = {
      ...(payloadMode !== undefined
        ? { payload_mode: payloadMode }
        : firstProvider
          ? { payload_mode: 'gcm' }
          : {}),
      ...(consumeAuth !== undefined
        ? { consume_auth: consumeAuth }
        : firstProvider
          ? { consume_auth: 'client_secret' }
          : {}),
    };
    const answer = (await server.request(
      'POST',
      '/v1/development-api/init_permission_provider',
      { client_id: clientId, cuid, release_per: Number(releasePerText), owner_addr: ownerAddr, ...settings },
      login.token,
    )) as Record<string, unknown>;
    return { ...answer, client_id: clientId, cuid };
  },
};

/** Whether the app has no provider yet (`GET payload_mode` answers 404 `provider_not_registered`). */
async function isFirstProvider(server: ServerApi, clientId: string, token: string): Promise<boolean> {
  try {
    await server.request(
      'GET',
      `/v1/development-api/payload_mode?client_id=${encodeURIComponent(clientId)}`,
      undefined,
      token,
    );
    return false;
  } catch (err) {
    if (err instanceof CommandFailure && err.code === 'provider_not_registered') return true;
    throw err;
  }
}
