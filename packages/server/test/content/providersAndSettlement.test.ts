import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dauthContentTokenAbi } from '@dauth/contracts';
import { getAddress, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  admin,
  buy,
  chainClient,
  consume,
  encryptPayload,
  fund,
  newClient,
  newPlayer,
  newProvider,
  newUser,
  onChain,
  payloadOf,
  post,
  type Player,
  type Provider,
} from './contentSupport.js';

/** Runs the real `openssl enc -aes-256-ctr` on `input` and answers its output as hex. */
function opensslCtr(keyHex: string, ivHex: string, input: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('openssl', ['enc', '-aes-256-ctr', '-K', keyHex, '-iv', ivHex]);
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString('hex')) : reject(new Error(`openssl exited ${code}`)),
    );
    child.stdin.end(input);
  });
}

describe('providers, test_encryption and settlement (real chain, real openssl)', () => {
  let server: TestServer;
  let provider: Provider;
  let player: Player;

  beforeAll(async () => {
    server = await startTestServer();
    provider = await newProvider(server, 37);
    player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '1000000')).status).toBe(200);
  });
  afterAll(() => server?.close());

  const contract = () => server.services.chain.info.contracts.content_token;

  it('issues one key pair per client, on its first registration only', async () => {
    expect(provider.key).toMatch(/^[0-9a-f]{64}$/);
    expect(provider.iv).toMatch(/^[0-9a-f]{32}$/);
    const second = await post(
      server,
      '/v1/development-api/init_permission_provider',
      {
        client_id: provider.clientId,
        cuid: `${provider.cuid}-dlc`,
        release_per: 10,
        owner_addr: provider.ownerAddr,
      },
      provider.developer.token,
    );
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      success: true,
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      payload_mode: 'ctr',
      consume_auth: 'none',
    });
    // The key stored sealed is the one shown: test_encryption agrees with a local encryption.
    const local = encryptPayload(provider, 'abc').slice(0);
    const remote = await post(
      server,
      '/v1/development-api/test_encryption',
      { client_id: provider.clientId, test_string: JSON.stringify('abc') },
      provider.developer.token,
    );
    expect(remote.body).toEqual({ success: true, encrypted_string: local });
    // And the cu_id lookup the slots domain uses resolves both cuids to the client.
    expect(await server.services.content.directory.findProviderByCuid(`${provider.cuid}-dlc`)).toBe(
      provider.clientId,
    );
  });

  it('keeps a cuid with its client: another client gets 409 and the chain is unchanged', async () => {
    const rival = await newUser(server, 'rival');
    const rivalClient = await newClient(server, rival);
    const res = await post(
      server,
      '/v1/development-api/init_permission_provider',
      {
        client_id: rivalClient,
        cuid: provider.cuid,
        release_per: 100,
        owner_addr: getAddress(`0x${'11'.repeat(20)}`),
      },
      rival.token,
    );
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ success: false, error: 'cuid_taken' });
    const [clientId, ownerAddr, releasePer] = await chainClient(server).readContract({
      address: contract(),
      abi: dauthContentTokenAbi,
      functionName: 'providerOf',
      args: [provider.cuid],
    });
    expect({ clientId, ownerAddr, releasePer }).toEqual({
      clientId: provider.clientId,
      ownerAddr: provider.ownerAddr,
      releasePer: 37,
    });
    // Someone else's client: 403; no token: 401; bad terms: 400 naming the field.
    const notOwner = await post(
      server,
      '/v1/development-api/init_permission_provider',
      { client_id: provider.clientId, cuid: 'x-new', release_per: 1, owner_addr: provider.ownerAddr },
      rival.token,
    );
    expect(notOwner).toMatchObject({ status: 403, body: { error: 'not_client_owner' } });
    const anonymous = await post(server, '/v1/development-api/init_permission_provider', {
      client_id: provider.clientId,
      cuid: 'x-new',
      release_per: 1,
      owner_addr: provider.ownerAddr,
    });
    expect(anonymous.status).toBe(401);
    for (const [field, patch] of [
      ['release_per', { release_per: 101 }],
      ['release_per', { release_per: 50.5 }],
      ['owner_addr', { owner_addr: '0x1234' }],
    ] as const) {
      const body: Record<string, unknown> = { client_id: provider.clientId, cuid: 'x-new', release_per: 1 };
      body.owner_addr = provider.ownerAddr;
      const bad = await post(
        server,
        '/v1/development-api/init_permission_provider',
        Object.assign(body, patch),
        provider.developer.token,
      );
      expect(bad).toMatchObject({ status: 400, body: { success: false, field } });
    }
  });

  it('test_encryption equals `openssl enc -aes-256-ctr` byte for byte, for the owner only', async () => {
    const samples = [
      'hello',
      JSON.stringify(payloadOf(provider, player, 12n)),
      'ünïcödé ✓ 🎮',
      'x'.repeat(1000),
      '',
    ];
    for (const text of samples) {
      const res = await post<{ encrypted_string: string }>(
        server,
        '/v1/development-api/test_encryption',
        { client_id: provider.clientId, test_string: text },
        provider.developer.token,
      );
      expect(res.status).toBe(200);
      expect(res.body.encrypted_string).toBe(
        await opensslCtr(provider.key, provider.iv, Buffer.from(text, 'utf8')),
      );
    }
    const stranger = await newUser(server, 'stranger');
    const res = await post(
      server,
      '/v1/development-api/test_encryption',
      { client_id: provider.clientId, test_string: 'hello' },
      stranger.token,
    );
    expect(res).toMatchObject({ status: 403, body: { error: 'not_client_owner' } });
    expect(
      (
        await post(server, '/v1/development-api/test_encryption', {
          client_id: provider.clientId,
          test_string: 'a',
        })
      ).status,
    ).toBe(401);
  });

  it('release is disabled by default, then pays exactly (used − released) × release_per / 100, never twice', async () => {
    const client = chainClient(server);
    const release = () =>
      post<{ released_amount: string; tx_hash: string }>(
        server,
        '/v1/development-api/release_used_balance',
        { client_id: provider.clientId, cuid: provider.cuid, slot: player.slot },
        provider.developer.token,
      );
    const spend = async (amount: bigint) => {
      const res = await consume(server, {
        encrypted_message: encryptPayload(provider, payloadOf(provider, player, amount)),
      });
      expect(res.status).toBe(200);
    };
    await spend(1234n);
    const ownerBefore = await client.getBalance({ address: provider.ownerAddr });
    const disabled = await release();
    expect(disabled).toMatchObject({ status: 403, body: { success: false, error: 'release_disabled' } });
    expect(await client.getBalance({ address: provider.ownerAddr })).toBe(ownerBefore);

    // The platform's switches need the admin key.
    expect(
      (await post(server, '/v1/admin/content/release', { cuid: provider.cuid, enabled: true })).status,
    ).toBe(401);
    const enabled = await post(
      server,
      '/v1/admin/content/release',
      { cuid: provider.cuid, enabled: true },
      admin(server),
    );
    expect(enabled).toMatchObject({
      status: 200,
      body: { success: true, cuid: provider.cuid, enabled: true },
    });
    const funded = await post(
      server,
      '/v1/admin/content/pool',
      { cuid: provider.cuid, amount: parseEther('1').toString() },
      admin(server),
    );
    expect(funded).toMatchObject({ status: 200, body: { success: true, pool: parseEther('1').toString() } });

    const { used } = await onChain(server, provider.cuid, player.slot);
    const first = await release();
    expect(first.status).toBe(200);
    const expected = (used * 37n) / 100n;
    expect(first.body).toEqual({
      success: true,
      released_amount: expected.toString(),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await client.getBalance({ address: provider.ownerAddr })).toBe(ownerBefore + expected);
    const poolAfter = await client.readContract({
      address: contract(),
      abi: dauthContentTokenAbi,
      functionName: 'poolOf',
      args: [provider.cuid],
    });
    expect(poolAfter).toBe(parseEther('1') - expected);

    // Nothing new to release: 409, and nothing is paid.
    const twice = await release();
    expect(twice).toMatchObject({ status: 409, body: { error: 'nothing_to_release' } });
    expect(await client.getBalance({ address: provider.ownerAddr })).toBe(ownerBefore + expected);

    // Only the usage since the last release is paid next time.
    await spend(999n);
    const next = await release();
    expect(next.body).toMatchObject({ released_amount: ((999n * 37n) / 100n).toString() });
    expect(await client.getBalance({ address: provider.ownerAddr })).toBe(
      ownerBefore + expected + (999n * 37n) / 100n,
    );

    // Switched off again: refused.
    await post(server, '/v1/admin/content/release', { cuid: provider.cuid, enabled: false }, admin(server));
    await spend(10n);
    expect((await release()).body).toMatchObject({ error: 'release_disabled' });
  });

  it('refuses a purchase without the PIN trio (401 pin_required) or by someone else (403), changing nothing', async () => {
    const before = await onChain(server, provider.cuid, player.slot);
    const noPin = await post(
      server,
      '/v1/development-api/user_buy_content_token',
      { client_id: provider.clientId, user_dbkey: player.slotId, amount: '100', cuid: provider.cuid },
      player.user.token,
    );
    expect(noPin).toMatchObject({ status: 401, body: { error: 'pin_required' } });
    const thief = await newPlayer(server, provider, '1');
    const stolen = await post(
      server,
      '/v1/development-api/user_buy_content_token',
      {
        client_id: provider.clientId,
        user_dbkey: player.slotId,
        amount: '100',
        cuid: provider.cuid,
        ...thief.pin,
      },
      thief.user.token,
    );
    expect(stolen).toMatchObject({ status: 403, body: { error: 'not_slot_owner' } });
    const wrongPin = await post(
      server,
      '/v1/development-api/user_buy_content_token',
      {
        client_id: provider.clientId,
        user_dbkey: player.slotId,
        amount: '100',
        cuid: provider.cuid,
        ...player.pin,
        key_share_user: randomBytes(32).toString('hex'),
      },
      player.user.token,
    );
    expect(wrongPin).toMatchObject({ status: 401, body: { error: 'invalid_pin' } });
    const poor = await post(
      server,
      '/v1/development-api/user_buy_content_token',
      {
        client_id: provider.clientId,
        user_dbkey: player.slotId,
        amount: '1000000 ether',
        cuid: provider.cuid,
        ...player.pin,
      },
      player.user.token,
    );
    expect(poor).toMatchObject({ status: 409, body: { error: 'insufficient_funds' } });
    expect(await onChain(server, provider.cuid, player.slot)).toEqual(before);
    await fund(server, player.wallet, 1n);
  });
});
