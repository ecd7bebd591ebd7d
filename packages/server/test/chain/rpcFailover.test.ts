import { type AnvilInstance, entryPointAbi, startAnvil } from '@dauth/contracts';
import { createWalletClient, http as httpTransport, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../src/chain/devAccounts.js';
import { loadConfig } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshKeys, randomOwner } from './chainTestHelpers.js';
import { type FaultyProxy, startProxy } from './faults/faultNode.js';

describe('CHAIN_RPC_URLS: failover between endpoints of one chain (real anvil behind two proxies)', () => {
  let node: AnvilInstance;
  let first: FaultyProxy;
  let second: FaultyProxy;
  let server: TestServer;

  beforeAll(async () => {
    node = await startAnvil({ chainId: 1337 });
    first = await startProxy(node.rpcUrl);
    second = await startProxy(node.rpcUrl);
    const keys = freshKeys();
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: httpTransport(node.rpcUrl),
    });
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
      await bank.sendTransaction({
        chain: null,
        to: privateKeyToAccount(key).address,
        value: parseEther('100'),
      });
    }
    server = await startTestServer({ env: { CHAIN_RPC_URLS: `${first.url},${second.url}`, ...keys } });
    // Sponsorship needs a paymaster deposit on an external chain.
    await bank.writeContract({
      chain: null,
      address: server.services.chain.info.contracts.entry_point,
      abi: entryPointAbi,
      functionName: 'depositTo',
      args: [server.services.chain.info.contracts.paymaster],
      value: parseEther('10'),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await first?.close();
    await second?.close();
    await node?.stop();
  });

  async function readyz(): Promise<{
    status: number;
    body: { status?: string; checks: Record<string, string> };
  }> {
    // The checks are for the operator: the admin key asks for them.
    const response = await fetch(`${server.url}/readyz`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    return { status: response.status, body: (await response.json()) as never };
  }

  /** A real write: a sponsored operation bundled by the relayer, mined, its receipt read. */
  async function transfer(): Promise<void> {
    const owner = randomOwner();
    const { chain } = server.services;
    const result = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    expect(result.success).toBe(true);
  }

  it('parses CHAIN_RPC_URLS in order and refuses it together with CHAIN_RPC_URL', () => {
    const keys = {
      RELAYER_PRIVATE_KEY: generatePrivateKey(),
      PAYMASTER_SIGNER_PRIVATE_KEY: generatePrivateKey(),
      OPERATOR_OWNER_PRIVATE_KEY: generatePrivateKey(),
      DEPLOYER_PRIVATE_KEY: generatePrivateKey(),
    };
    const config = loadConfig({ CHAIN_RPC_URLS: 'http://a.example:8545, https://b.example/v2/key', ...keys });
    expect(config.chain).toMatchObject({
      kind: 'external',
      rpcUrl: 'http://a.example:8545',
      rpcUrls: ['http://a.example:8545', 'https://b.example/v2/key'],
    });
    expect(() => loadConfig({ CHAIN_RPC_URLS: 'http://a.example,ftp://b.example', ...keys })).toThrow(
      /CHAIN_RPC_URLS/,
    );
    expect(() =>
      loadConfig({ CHAIN_RPC_URL: 'http://a.example', CHAIN_RPC_URLS: 'http://b.example', ...keys }),
    ).toThrow(/not both/);
  });

  it('uses the first endpoint while it answers', async () => {
    const before = { first: first.forwarded, second: second.forwarded };
    await transfer();
    expect(first.forwarded).toBeGreaterThan(before.first);
    expect(second.forwarded).toBe(before.second);
    expect(await readyz()).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { chain_rpc: 'ok' } },
    });
  });

  it('keeps answering while the first endpoint hangs, and /readyz names it', async () => {
    first.mode = 'hang';
    try {
      const started = Date.now();
      await transfer(); // the first request waits out the 10 s timeout, then fails over
      await transfer(); // the hanging endpoint is skipped: no second wait
      expect(Date.now() - started).toBeLessThan(25_000);
      const fast = Date.now();
      await transfer();
      expect(Date.now() - fast).toBeLessThan(5_000);
      const ready = await readyz();
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.checks.chain).toBe('ok');
      expect(ready.body.checks.chain_rpc).toBe(`rpc#1 ${new URL(first.url).host} down (timed out)`);
    } finally {
      first.mode = 'forward';
    }
    // Back: the probe of /readyz sees it answer, and live requests use it first again.
    expect(await readyz()).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { chain_rpc: 'ok' } },
    });
    const before = second.forwarded;
    await transfer();
    expect(second.forwarded).toBe(before);
  }, 60_000);

  it('keeps answering while the first endpoint answers 503, and /readyz names it', async () => {
    first.mode = 'error503';
    try {
      const started = Date.now();
      await transfer();
      await transfer();
      expect(Date.now() - started).toBeLessThan(10_000);
      const ready = await readyz();
      expect(ready.body).toMatchObject({
        status: 'degraded',
        checks: { chain: 'ok', chain_rpc: `rpc#1 ${new URL(first.url).host} down (HTTP 503)` },
      });
    } finally {
      first.mode = 'forward';
    }
  }, 60_000);

  it('is not ready when every endpoint is down', async () => {
    first.mode = 'error503';
    second.mode = 'error503';
    try {
      const ready = await readyz();
      expect(ready.status).toBe(503);
      expect(ready.body.checks.chain_rpc).toContain('rpc#2');
    } finally {
      first.mode = 'forward';
      second.mode = 'forward';
    }
  }, 30_000);
});
