import fs from 'node:fs';
import { type AnvilInstance, startAnvil } from '@dauth/contracts';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  custom,
  type Hash,
  http,
  parseGwei,
  type PublicClient,
  toHex,
} from 'viem';
import pino from 'pino';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainClient } from '../../src/chain/chainClient.js';
import { JournalRecovery } from '../../src/chain/journal/journalRecovery.js';
import {
  fundedKeys,
  journalEntryCount,
  randomOwner,
  startTestChain,
  type TestChain,
} from './chainTestHelpers.js';

const silentLogger = pino({ level: 'silent' });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const savedHead = (statePath: string): number => {
  try {
    return (JSON.parse(fs.readFileSync(statePath, 'utf8')) as { best_block_number: number })
      .best_block_number;
  } catch {
    return -1;
  }
};

describe('the journal on an external chain (anvil with chain id 1337 behind CHAIN_RPC_URL)', () => {
  let node: AnvilInstance;
  beforeAll(async () => {
    node = await startAnvil({ chainId: 1337 });
  });
  afterAll(() => node?.stop());

  it('re-sends, byte for byte, a confirmed transaction a reorg dropped', async () => {
    const keys = await fundedKeys(node.rpcUrl);
    const test = await startTestChain({
      env: { CHAIN_RPC_URL: node.rpcUrl, ...keys },
      journalMaintenance: { intervalMs: 3_600_000 },
    });
    try {
      const { chain, database } = test;
      const client = createPublicClient({ transport: http(node.rpcUrl) });
      const rpc = (method: string, params: unknown[] = []) =>
        client.request({ method: method as 'eth_chainId', params: params as never });
      // The deployment went through the journal too.
      const deployment = await database.db.selectFrom('chain_journal').selectAll().execute();
      expect(deployment.length).toBeGreaterThanOrEqual(6);
      expect(deployment.every((e) => e.state === 'mined' && e.chain_id === 1337)).toBe(true);

      const snapshot = await rpc('evm_snapshot');
      const deployer = privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY);
      const wallet = createWalletClient({
        account: deployer,
        chain: chain.gateway.client.chain,
        transport: chain.journal.sender.transportFor(deployer.address),
      });
      const to = randomOwner().address;
      const hash = await wallet.sendTransaction({ to, value: 12345n });
      await chain.journal.sender.confirm(
        await client.waitForTransactionReceipt({ hash, pollingInterval: 20 }),
      );
      const entry = await database.db
        .selectFrom('chain_journal')
        .selectAll()
        .where('tx_hash', '=', hash)
        .executeTakeFirstOrThrow();
      expect(entry).toMatchObject({ state: 'mined', sender: deployer.address });

      // A reorg: the node forgets the block.
      expect(await rpc('evm_revert', [snapshot])).toBe(true);
      expect(await client.getBalance({ address: to })).toBe(0n);
      await chain.journal.maintenance.run();
      expect(chain.journal.recovery.progress).toMatchObject({
        state: 'done',
        missing: 1,
        replayed: 1,
        failed: 0,
      });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      expect(receipt.status).toBe('success');
      expect(await client.getBalance({ address: to })).toBe(12345n);
      // The next round records the new block, and finds nothing missing.
      await chain.journal.maintenance.run();
      const after = await database.db
        .selectFrom('chain_journal')
        .selectAll()
        .where('tx_hash', '=', hash)
        .executeTakeFirstOrThrow();
      expect(after.block_hash).toBe(receipt.blockHash);
      expect(chain.journal.recovery.progress).toMatchObject({ state: 'done', missing: 0 });
    } finally {
      await test.close();
    }
  }, 60_000);
});

describe('a lost transaction whose nonce the chain holds again (external anvil, one service)', () => {
  // One anvil and one service for the three cases: each sends from the deployer at its next nonce.
  let node: AnvilInstance;
  let test: TestChain;
  let client: PublicClient;
  let deployer: ReturnType<typeof privateKeyToAccount>;
  /** What the journal told its observer as unrecoverable (the `…_journal_unrecoverable_total` metric). */
  let unrecoverable = 0;
  const rpc = (method: string, params: unknown[] = []) =>
    client.request({ method: method as 'eth_chainId', params: params as never });
  const journalRow = (hash: Hash) =>
    test.database.db
      .selectFrom('chain_journal')
      .select(['state', 'block_hash'])
      .where('tx_hash', '=', hash)
      .executeTakeFirstOrThrow();
  const state = async (hash: Hash) => (await journalRow(hash)).state;
  /** The lost transaction's fees; its replacement offers more. */
  const firstFees = { maxFeePerGas: parseGwei('20'), maxPriorityFeePerGas: parseGwei('1') };

  beforeAll(async () => {
    node = await startAnvil({ chainId: 1337 });
    client = createPublicClient({ transport: http(node.rpcUrl) });
    const keys = await fundedKeys(node.rpcUrl);
    test = await startTestChain({
      env: { CHAIN_RPC_URL: node.rpcUrl, ...keys },
      journalMaintenance: { intervalMs: 3_600_000 },
    });
    test.chain.telemetry.observeJournal({ unrecoverable: () => void unrecoverable++ });
    deployer = privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY);
  }, 60_000);
  afterAll(async () => {
    await test?.close();
    await node?.stop();
  });

  /** A journaled transfer from the deployer, mined and confirmed, then taken out by a reorg. */
  async function minedThenReorged(to: Address) {
    const { chain } = test;
    const wallet = createWalletClient({
      account: deployer,
      chain: chain.gateway.client.chain,
      transport: chain.journal.sender.transportFor(deployer.address),
    });
    const snapshot = await rpc('evm_snapshot');
    const nonce = await client.getTransactionCount({ address: deployer.address });
    const hash = await wallet.sendTransaction({ to, value: 7n, nonce, ...firstFees });
    await chain.journal.sender.confirm(await client.waitForTransactionReceipt({ hash, pollingInterval: 20 }));
    expect(await state(hash)).toBe('mined');
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    expect(await client.getBalance({ address: to })).toBe(0n);
    return { wallet, hash, nonce };
  }

  it('its journaled fee replacement was mined on the new branch: the work is there, nothing is unrecoverable', async () => {
    const to = randomOwner().address;
    const { wallet, hash, nonce } = await minedThenReorged(to);
    // The same transfer at the same nonce with a higher tip (what the relayer sends when a bundle waits).
    const replacement = await wallet.sendTransaction({
      to,
      value: 7n,
      nonce,
      maxFeePerGas: parseGwei('30'),
      maxPriorityFeePerGas: parseGwei('2'),
    });
    expect(replacement).not.toBe(hash);
    const mined = await client.waitForTransactionReceipt({ hash: replacement, pollingInterval: 20 });
    const before = unrecoverable;
    await test.chain.journal.maintenance.run();
    expect(test.chain.journal.recovery.progress).toMatchObject({ state: 'done', missing: 1, failed: 0 });
    expect(unrecoverable).toBe(before);
    expect(await state(hash)).toBe('dropped');
    expect(await state(replacement)).toBe('mined');
    expect(mined.status).toBe('success');
    expect(await client.getBalance({ address: to })).toBe(7n);
  }, 30_000);

  it('a fee spike refuses it for now: it stays lost, nothing is unrecoverable, a round after the spike gives it back', async () => {
    const to = randomOwner().address;
    const { hash } = await minedThenReorged(to);
    // The base fee ×50 and more, over the transaction's cap: the node refuses it ("max fee per gas less than
    // block base fee"), as in the chaos suite's reorg right after a spike.
    await rpc('anvil_setNextBlockBaseFeePerGas', [toHex(parseGwei('100'))]);
    await rpc('evm_mine');
    const before = unrecoverable;
    await test.chain.journal.maintenance.run();
    expect(test.chain.journal.recovery.progress).toMatchObject({ state: 'done', missing: 1, failed: 1 });
    expect(unrecoverable).toBe(before);
    expect(await state(hash)).toBe('lost');
    // The spike over, the next round sends the same bytes again.
    await rpc('anvil_setNextBlockBaseFeePerGas', [toHex(parseGwei('1'))]);
    await rpc('evm_mine');
    await test.chain.journal.maintenance.run();
    expect(test.chain.journal.recovery.progress).toMatchObject({
      state: 'done',
      missing: 1,
      replayed: 1,
      failed: 0,
    });
    expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success');
    expect(await client.getBalance({ address: to })).toBe(7n);
    expect(unrecoverable).toBe(before);
  }, 30_000);

  it("it came back between the comparison and the round's send (the relayer's refill sent it): recorded as mined, not dropped", async () => {
    const to = randomOwner().address;
    const { hash } = await minedThenReorged(to);
    // The round's node: the first send of a raw transaction reaches the node twice, the first time as the relayer's
    // refill would, mined before the round's own send arrives ("nonce too low").
    let raced = false;
    const racing = createPublicClient({
      chain: test.chain.gateway.client.chain,
      transport: custom({
        async request({ method, params }: { method: string; params?: unknown }) {
          if (method === 'eth_sendRawTransaction' && !raced) {
            raced = true;
            const refilled = (await rpc(method, params as unknown[])) as Hash;
            await client.waitForTransactionReceipt({ hash: refilled, pollingInterval: 20 });
          }
          return rpc(method, params as unknown[]);
        },
      }),
    });
    const recovery = new JournalRecovery(racing as ChainClient, test.chain.journal.sender, silentLogger);
    recovery.observer = { unrecoverable: () => void unrecoverable++ };
    const before = unrecoverable;
    const report = await recovery.run({ replay: false, unknown: false });
    expect(raced).toBe(true);
    expect(report).toMatchObject({ state: 'done', missing: 1, replayed: 1, failed: 0 });
    expect(unrecoverable).toBe(before);
    const receipt = await client.getTransactionReceipt({ hash });
    expect(await journalRow(hash)).toEqual({ state: 'mined', block_hash: receipt.blockHash });
    expect(await client.getBalance({ address: to })).toBe(7n);
  }, 30_000);
});

describe('compaction of the journal on the embedded chain', () => {
  it('deletes the entries the last state dump holds, and keeps the later ones', async () => {
    const test = await startTestChain({ embedded: { stateIntervalSeconds: 1 } });
    try {
      const { chain, database } = test;
      const count = () => journalEntryCount(database);
      // The deployment's entries go once a dump holds them. The start compacts too, so on a slow
      // machine (a deployment longer than the 1 s dump interval) some may already be gone here.
      const deployed = await count();
      await sleep(2_500);
      // The background compaction may have taken some or all of them during the wait (CI at load did).
      const removed = await chain.journal.maintenance.compact();
      expect(removed).toBeLessThanOrEqual(deployed);
      expect(await count()).toBe(0);

      const fund = await chain.faucet.fund({ address: randomOwner().address, native: 1n });
      expect(fund.nativeBalance).toBe(1n);
      expect(await count()).toBe(1);
      const entry = await database.db.selectFrom('chain_journal').selectAll().executeTakeFirstOrThrow();
      // The entry stays exactly until a dump holds its block.
      for (let i = 0; i < 40 && (await count()) > 0; i++) {
        const before = savedHead(chain.embedded!.statePath);
        await chain.journal.maintenance.compact();
        const after = savedHead(chain.embedded!.statePath);
        if (before === after && after < entry.block_number!) {
          expect(await count()).toBe(1);
        }
        await sleep(100);
      }
      expect(await count()).toBe(0);
      expect(savedHead(chain.embedded!.statePath)).toBeGreaterThanOrEqual(entry.block_number!);
    } finally {
      await test.close();
    }
  }, 60_000);
});
