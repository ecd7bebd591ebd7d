import { dauthContentTokenAbi } from '@dauth/contracts';
import { parseTransaction, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_CHAIN_KEYS } from '../../src/chain/devAccounts.js';
import { PaymasterSponsor } from '../../src/chain/operations/sponsorship.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { buy, chainClient, newPlayer, newProvider, onChain } from '../content/contentSupport.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WINDOW_SECONDS = 2;

describe('replaying the chain journal into a chain that lost blocks', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      chain: {
        // Paymaster windows of 2 s: long expired by the time of the replay below.
        sponsor: ({ paymaster, chainId }) =>
          new PaymasterSponsor(
            paymaster,
            chainId,
            privateKeyToAccount(EMBEDDED_CHAIN_KEYS.paymasterSigner),
            async () => {
              // The embedded chain's clock may run a little ahead of the wall clock (a block per transaction).
              const now = Math.floor(Date.now() / 1000);
              const latest = server ? Number((await chainClient(server).getBlock()).timestamp) : now;
              return {
                validAfter: Math.min(now, latest) - 1,
                validUntil: Math.max(now, latest) + WINDOW_SECONDS,
              };
            },
          ),
      },
    });
  });
  afterAll(() => server?.close());

  it('lands operations whose paymaster windows expired long ago, in their original blocks and times', async () => {
    const client = chainClient(server);
    const rpc = (method: string, params: unknown[] = []) =>
      client.request({ method: method as 'eth_chainId', params: params as never });
    const db = server.services.database.db;
    const { sender } = server.services.chain.journal;
    const snapshot = await rpc('evm_snapshot');
    const from = await client.getBlockNumber();

    const provider = await newProvider(server);
    const player = await newPlayer(server, provider);
    const bought = await buy(server, provider, player, '700');
    expect(bought.status).toBe(200);
    const before = await db
      .selectFrom('chain_journal')
      .selectAll()
      .where('block_number', '>', Number(from))
      .orderBy('block_number')
      .execute();
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before.every((e) => e.state === 'mined')).toBe(true);
    // The journal holds each block's own time (from the receipt where the node gives it, else the header).
    for (const entry of before) {
      const block = await client.getBlock({ blockNumber: BigInt(entry.block_number!) });
      expect(BigInt(entry.block_timestamp!)).toBe(block.timestamp);
      expect(entry.block_hash).toBe(block.hash);
    }

    // The chain loses every one of those blocks; the windows run out meanwhile.
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({ balance: 0n, used: 0n });
    await sleep((WINDOW_SECONDS + 2) * 1000);
    // Sent now, the purchase's bundle would fail: its sponsorship expired (AA32). (Simulated in a block
    // mined now, inside a snapshot: the chain must stay as the crash left it.)
    const purchaseEntry = before.find((e) => e.tx_hash === bought.body.tx_hash)!;
    const tx = parseTransaction(purchaseEntry.raw as Hex);
    const beforeCheck = await rpc('evm_snapshot');
    await rpc('evm_mine', [{ timestamp: Math.floor(Date.now() / 1000), blocks: 1 }]);
    await expect(
      client.call({ account: purchaseEntry.sender as Hex, to: tx.to!, data: tx.data! }),
    ).rejects.toThrow(/AA32/);
    expect(await rpc('evm_revert', [beforeCheck])).toBe(true);

    // The recovery the watchdog runs after a restart of anvil; readiness says so until it is done.
    const recovering = server.services.chain.embedded!.onRestart!();
    await expect(server.services.chain.probe()).rejects.toMatchObject({
      name: 'ChainNotReadyError',
      message: expect.stringMatching(
        /^recovering: (comparing the chain with the journal|\d+\/\d+ lost transactions replayed)$/,
      ),
    });
    await recovering;
    await expect(server.services.chain.probe()).resolves.toBeUndefined();
    const report = server.services.chain.journal.recovery.progress;
    expect(report).toMatchObject({ state: 'done', failed: 0 });
    expect(report.replayed).toBe(before.length);

    for (const entry of before) {
      const receipt = await client.getTransactionReceipt({ hash: entry.tx_hash as Hex });
      expect(receipt.status).toBe('success');
      expect(receipt.blockNumber).toBe(BigInt(entry.block_number!));
      const block = await client.getBlock({ blockNumber: receipt.blockNumber });
      expect(block.timestamp).toBe(BigInt(entry.block_timestamp!));
    }
    expect(await onChain(server, provider.cuid, player.slot)).toEqual({ balance: 700n, used: 0n });
    expect(
      await client.readContract({
        address: server.services.chain.info.contracts.content_token,
        abi: dauthContentTokenAbi,
        functionName: 'balanceOf',
        args: [provider.cuid, player.slot],
      }),
    ).toBe(700n);
    // The service keeps working after the replay (new blocks at the wall clock again).
    expect((await buy(server, provider, player, '5')).status).toBe(200);
    const head = await client.getBlock({ blockTag: 'latest' });
    expect(Number(head.timestamp)).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
    expect(sender.chainId).toBe(31337);
  }, 60_000);
});
