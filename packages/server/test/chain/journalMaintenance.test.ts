import fs from 'node:fs';
import { type AnvilInstance, startAnvil } from '@dauth/contracts';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../src/chain/devAccounts.js';
import { freshKeys, journalEntryCount, randomOwner, startTestChain } from './chainTestHelpers.js';

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
    const keys = freshKeys();
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: http(node.rpcUrl),
    });
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
      await bank.sendTransaction({
        chain: null,
        to: privateKeyToAccount(key).address,
        value: parseEther('100'),
      });
    }
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
