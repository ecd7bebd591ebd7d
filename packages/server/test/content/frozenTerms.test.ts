import { dauthContentTokenAbi } from '@dauth/contracts';
import { parseEther, parseEventLogs } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentTokenChain } from '../../src/services/content/ports.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  admin,
  buy,
  chainClient,
  consume,
  encryptPayload,
  newPlayer,
  newProvider,
  payloadOf,
  post,
  type Player,
  type Provider,
} from './contentSupport.js';

/**
 * Frozen settlement terms (decisions §7): once the platform enabled release for a cuid, the provider
 * cannot raise `release_per` (or move `owner_addr`) to drain a pool the platform funded; only the
 * admin API changes them, and usage recorded before a change is paid at the terms it was recorded under.
 */
describe('settlement terms are frozen once release is enabled', () => {
  let server: TestServer;
  let provider: Provider;
  let player: Player;

  beforeAll(async () => {
    server = await startTestServer();
    provider = await newProvider(server, 50);
    player = await newPlayer(server, provider);
    expect((await buy(server, provider, player, '100000')).status).toBe(200);
  });
  afterAll(() => server?.close());

  const register = (releasePer: number, ownerAddr = provider.ownerAddr) =>
    post(
      server,
      '/v1/development-api/init_permission_provider',
      { client_id: provider.clientId, cuid: provider.cuid, release_per: releasePer, owner_addr: ownerAddr },
      provider.developer.token,
    );
  const spend = async (amount: bigint, by: Player = player) =>
    expect(
      (
        await consume(server, {
          encrypted_message: encryptPayload(provider, payloadOf(provider, by, amount)),
        })
      ).status,
    ).toBe(200);
  const release = (of: Player = player) =>
    post<{ released_amount: string }>(
      server,
      '/v1/development-api/release_used_balance',
      { client_id: provider.clientId, cuid: provider.cuid, slot: of.slot },
      provider.developer.token,
    );
  const onChainTerms = async () => {
    const [, ownerAddr, releasePer] = await chainClient(server).readContract({
      address: server.services.chain.info.contracts.content_token,
      abi: dauthContentTokenAbi,
      functionName: 'providerOf',
      args: [provider.cuid],
    });
    return { ownerAddr, releasePer };
  };
  const paidTo = (address: `0x${string}`) => chainClient(server).getBalance({ address });

  it('refuses a raised release_per or a new owner_addr after release was enabled, and pays the agreed 50%', async () => {
    // Before release is enabled the provider may still change its terms (same terms again: fine too).
    expect((await register(50)).status).toBe(200);
    await spend(110n);
    expect(
      (await post(server, '/v1/admin/content/release', { cuid: provider.cuid, enabled: true }, admin(server)))
        .status,
    ).toBe(200);
    expect(
      (
        await post(
          server,
          '/v1/admin/content/pool',
          { cuid: provider.cuid, amount: parseEther('1').toString() },
          admin(server),
        )
      ).status,
    ).toBe(200);

    const raised = await register(100);
    expect(raised.status).toBe(409);
    expect(raised.body).toMatchObject({ success: false, error: 'terms_frozen' });
    const moved = await register(50, '0x000000000000000000000000000000000000dEaD');
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ error: 'terms_frozen' });
    expect(await onChainTerms()).toEqual({ ownerAddr: provider.ownerAddr, releasePer: 50 });
    // Disabling release again does not unfreeze them.
    await post(server, '/v1/admin/content/release', { cuid: provider.cuid, enabled: false }, admin(server));
    expect((await register(100)).status).toBe(409);
    await post(server, '/v1/admin/content/release', { cuid: provider.cuid, enabled: true }, admin(server));

    const before = await paidTo(provider.ownerAddr);
    const paid = await release();
    expect(paid.status).toBe(200);
    expect(paid.body.released_amount).toBe('55');
    expect(await paidTo(provider.ownerAddr)).toBe(before + 55n);
  });

  it('an admin-approved change pays earlier usage at the old terms first, later usage at the new ones', async () => {
    await spend(40n);
    expect(
      (
        await post(server, '/v1/admin/content/terms', {
          cuid: provider.cuid,
          release_per: 100,
          owner_addr: provider.ownerAddr,
        })
      ).status,
    ).toBe(401);
    const before = await paidTo(provider.ownerAddr);
    const amended = await post<{ settled: string; settled_slots: number }>(
      server,
      '/v1/admin/content/terms',
      { cuid: provider.cuid, release_per: 100, owner_addr: provider.ownerAddr },
      admin(server),
    );
    expect(amended.status).toBe(200);
    expect(amended.body).toMatchObject({ success: true, settled: '20', settled_slots: 1 });
    expect(await paidTo(provider.ownerAddr)).toBe(before + 20n);
    expect(await onChainTerms()).toEqual({ ownerAddr: provider.ownerAddr, releasePer: 100 });
    const history = await server.services.database.db
      .selectFrom('content_terms_changes')
      .selectAll()
      .where('cuid', '=', provider.cuid)
      .execute();
    expect(history).toMatchObject([{ previous_release_per: 50, release_per: 100 }]);

    await spend(10n);
    const paid = await release();
    expect(paid.body.released_amount).toBe('10');
    expect(await paidTo(provider.ownerAddr)).toBe(before + 30n);
  });

  it('usage landing between the reading and the change is still paid at the terms it was recorded under', async () => {
    const late = await newPlayer(server, provider);
    expect((await buy(server, provider, late, '1000')).status).toBe(200);
    await spend(30n);
    // The moment a replica's usage batch lands after the change read the slots (the late player's slot had
    // no usage then) and before its transaction: made certain by sending that usage from inside the send.
    const chain = (server.services.content.settlement as unknown as { chain: ContentTokenChain }).chain;
    const send = chain.amendTerms.bind(chain);
    let sends = 0;
    chain.amendTerms = async (input) => {
      if (sends++ === 0) await spend(40n, late);
      return send(input);
    };
    const before = await paidTo(provider.ownerAddr);
    let amended;
    try {
      amended = await post<{ settled: string; settled_slots: number }>(
        server,
        '/v1/admin/content/terms',
        { cuid: provider.cuid, release_per: 20, owner_addr: provider.ownerAddr },
        admin(server),
      );
    } finally {
      chain.amendTerms = send;
    }
    expect(amended.status).toBe(200);
    // Both slots' usage at the 100% in force when it was recorded; the first transaction was refused.
    expect(amended.body).toMatchObject({ success: true, settled: '70', settled_slots: 2 });
    expect(sends).toBe(2);
    expect(await paidTo(provider.ownerAddr)).toBe(before + 70n);
    expect(await onChainTerms()).toEqual({ ownerAddr: provider.ownerAddr, releasePer: 20 });

    await spend(50n, late);
    expect((await release(late)).body.released_amount).toBe('10');
    expect((await release()).body).toMatchObject({ error: 'nothing_to_release' });
  });
});

describe('the contract refuses a terms change that races the platform enabling release', () => {
  let server: TestServer;
  afterAll(() => server?.close());

  it('409 terms_frozen when release is enabled between the service’s check and the chain write', async () => {
    server = await startTestServer();
    const provider = await newProvider(server, 50);
    // The admin's switch lands after the service read the terms as changeable (its own check passed)
    // and before the provider's write: made certain by enabling release from inside the send.
    const chain = (server.services.content.providers as unknown as { chain: ContentTokenChain }).chain;
    const send = chain.registerProvider.bind(chain);
    chain.registerProvider = async (input) => {
      const enabled = await post(
        server,
        '/v1/admin/content/release',
        { cuid: provider.cuid, enabled: true },
        admin(server),
      );
      expect(enabled.status).toBe(200);
      return send(input);
    };
    let raised;
    try {
      raised = await post(
        server,
        '/v1/development-api/init_permission_provider',
        {
          client_id: provider.clientId,
          cuid: provider.cuid,
          release_per: 100,
          owner_addr: provider.ownerAddr,
        },
        provider.developer.token,
      );
    } finally {
      chain.registerProvider = send;
    }
    expect(raised.status).toBe(409);
    expect(raised.body).toMatchObject({ success: false, error: 'terms_frozen' });
    const [, ownerAddr, releasePer, enabled] = await chainClient(server).readContract({
      address: server.services.chain.info.contracts.content_token,
      abi: dauthContentTokenAbi,
      functionName: 'providerOf',
      args: [provider.cuid],
    });
    expect({ ownerAddr, releasePer, enabled }).toEqual({
      ownerAddr: provider.ownerAddr,
      releasePer: 50,
      enabled: true,
    });
    const row = await server.services.database.db
      .selectFrom('content_providers')
      .select(['release_per', 'terms_frozen'])
      .where('cuid', '=', provider.cuid)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ release_per: 50, terms_frozen: 1 });
  });
});

describe('a terms change over more slots than one transaction carries', () => {
  let server: TestServer;
  afterAll(() => server?.close());

  it('settles the excess first, at the old terms, then changes them with the rest', async () => {
    server = await startTestServer({ content: { settlement: { slotsPerSettlement: 2 } } });
    const provider = await newProvider(server, 50);
    const players = [
      await newPlayer(server, provider),
      await newPlayer(server, provider),
      await newPlayer(server, provider),
    ];
    for (const [i, player] of players.entries()) {
      expect((await buy(server, provider, player, '1000')).status).toBe(200);
      const used = await consume(server, {
        encrypted_message: encryptPayload(provider, payloadOf(provider, player, BigInt(10 * (i + 1)))),
      });
      expect(used.status).toBe(200);
    }
    const pool = { cuid: provider.cuid, amount: '1000' };
    expect((await post(server, '/v1/admin/content/pool', pool, admin(server))).status).toBe(200);
    const amended = await post<{ settled: string; settled_slots: number; tx_hash: `0x${string}` }>(
      server,
      '/v1/admin/content/terms',
      { cuid: provider.cuid, release_per: 100, owner_addr: provider.ownerAddr },
      admin(server),
    );
    expect(amended.status).toBe(200);
    // 10, 20 and 30 used at 50%: 5 + 10 + 15, over two transactions (2 slots, then the change with 1).
    expect(amended.body).toMatchObject({ success: true, settled: '30', settled_slots: 3 });
    const receipt = await chainClient(server).getTransactionReceipt({ hash: amended.body.tx_hash });
    expect(
      parseEventLogs({ abi: dauthContentTokenAbi, eventName: 'Released', logs: receipt.logs }),
    ).toHaveLength(1);
    expect(
      await chainClient(server).readContract({
        address: server.services.chain.info.contracts.content_token,
        abi: dauthContentTokenAbi,
        functionName: 'unsettledUsageOf',
        args: [provider.cuid],
      }),
    ).toBe(0n);
  });
});
