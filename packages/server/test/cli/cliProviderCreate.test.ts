import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { createUser, type TestUser } from '../helpers/http.js';
import { errorOf, runCli as dauth, startServerWithApp, type CliAppFixture } from './cliRunner.js';
import {
  buy,
  consume,
  consumeAs,
  encryptPayload,
  get,
  newPlayer,
  payloadOf,
  sealGcm,
  type Provider,
} from '../content/contentSupport.js';

interface Registered {
  success: boolean;
  client_id: string;
  cuid: string;
  tx_hash: string;
  encryption_key?: string;
  encryption_iv?: string;
  gcm_key?: string;
  payload_mode: string;
  consume_auth: string;
}

describe('dauth provider create through the running server', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let owner: TestUser;
  let clientId: string;
  let clientSecret: string;
  const ownerAddr = '0x00000000000000000000000000000000000c11a0';
  let fixture: CliAppFixture;
  beforeAll(async () => {
    fixture = await startServerWithApp({
      name: 'CLI provider game',
      redirect_uris: ['https://cli-provider.example/cb'],
      dapp: true,
    });
    ({ server, env, owner, clientId, clientSecret } = fixture);
  }, 60_000);
  afterAll(() => fixture.close());

  const asOwner = (cuid: string, user: TestUser = owner) => [
    'provider',
    'create',
    '--client-id',
    clientId,
    '--cuid',
    cuid,
    '--release-per',
    '40',
    '--owner-addr',
    ownerAddr,
    '--owner-email',
    user.email,
    '--password-stdin',
  ];

  it('registers the first provider in the strong mode: GCM payloads and the client secret required', async () => {
    const created = await dauth(asOwner('cli-first'), env, `${owner.password}\n`);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const answer = JSON.parse(created.stdout) as Registered;
    expect(answer).toMatchObject({
      success: true,
      client_id: clientId,
      cuid: 'cli-first',
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      encryption_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      encryption_iv: expect.stringMatching(/^[0-9a-f]{32}$/),
      gcm_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      payload_mode: 'gcm',
      consume_auth: 'client_secret',
    });
    // The server's own record agrees: the provider is registered on its terms, in the strong mode.
    const mode = await get(
      server,
      `/v1/development-api/payload_mode?client_id=${clientId}`,
      owner.loginToken,
    );
    expect(mode.body).toMatchObject({
      payload_mode: 'gcm',
      consume_auth: 'client_secret',
      has_gcm_key: true,
    });
    const stored = await server.services.content.directory.registered('cli-first');
    expect(stored).toMatchObject({ clientId, state: 'registered', releasePer: 40 });

    // What the strong mode means on the consumption endpoint: a spec CTR payload made with the issued
    // key is refused, an anonymous GCM one too; only GCM with the app's credentials spends tokens.
    const provider: Provider = {
      developer: { uuid: Number(owner.uuid), token: owner.loginToken },
      clientId,
      clientSecret,
      cuid: 'cli-first',
      ownerAddr,
      key: answer.encryption_key!,
      iv: answer.encryption_iv!,
      gcmKey: answer.gcm_key,
      registration: answer as unknown as Record<string, unknown>,
    };
    const player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '1000')).status).toBe(200);
    const ctr = await consumeAs(
      server,
      { clientId, clientSecret },
      {
        encrypted_message: encryptPayload(provider, payloadOf(provider, player, '5', { request_id: 'c1' })),
        client_id: clientId,
      },
    );
    expect(ctr.status).toBe(401);
    const gcmPayload = () =>
      sealGcm(
        answer.gcm_key!,
        clientId,
        payloadOf(provider, player, '5', {
          request_id: `g-${Math.random()}`,
          iat: Math.floor(Date.now() / 1000),
        }),
      );
    const anonymous = await consume(server, { encrypted_message: gcmPayload(), client_id: clientId });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('client_authentication_required');
    const accepted = await consumeAs(
      server,
      { clientId, clientSecret },
      {
        encrypted_message: gcmPayload(),
        client_id: clientId,
      },
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ success: true, used_balances: '5' });
  }, 120_000);

  it("a later cuid keeps the app's settings, options change them, and a stranger is refused", async () => {
    const second = await dauth(asOwner('cli-second'), env, `${owner.password}\n`);
    expect(second.code).toBe(0);
    const answer = JSON.parse(second.stdout) as Registered;
    expect(answer).toMatchObject({ success: true, payload_mode: 'gcm', consume_auth: 'client_secret' });
    expect(answer).not.toHaveProperty('encryption_key');
    expect(answer).not.toHaveProperty('gcm_key');

    const migrating = await dauth(
      [...asOwner('cli-third'), '--payload-mode', 'ctr+gcm'],
      env,
      `${owner.password}\n`,
    );
    expect(migrating.code).toBe(0);
    expect(JSON.parse(migrating.stdout)).toMatchObject({
      payload_mode: 'ctr+gcm',
      consume_auth: 'client_secret',
    });

    const stranger = await createUser(server.url);
    const refused = await dauth(asOwner('cli-stranger', stranger), env, `${stranger.password}\n`);
    expect(refused.code).toBe(1);
    expect(errorOf(refused.stderr)).toMatchObject({ success: false, error: 'not_client_owner' });
    expect(await server.services.content.directory.registered('cli-stranger')).toBeUndefined();

    const wrongMode = await dauth(
      [...asOwner('cli-bad'), '--payload-mode', 'ecb'],
      env,
      `${owner.password}\n`,
    );
    expect(wrongMode.code).toBe(2);
    expect(wrongMode.stderr).toContain('--payload-mode must be one of ctr, ctr+gcm, gcm');

    const help = await dauth(['--help'], env);
    expect(help.stdout).toContain('dauth provider create');
  }, 120_000);
});
