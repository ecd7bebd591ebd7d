import fs from 'node:fs';
import path from 'node:path';
import { startAnvil } from '@dauth/contracts';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { stateMatchesHead } from '../../../src/chain/embeddedChain.js';
import { senderAheadOfHead } from '../../../src/chain/journal/journalMaintenance.js';
import {
  isWholeDump,
  keepLastGoodDump,
  lastGoodDumpPath,
  readDumpHead,
} from '../../../src/chain/stateDump.js';
import type { Hash } from '../../../src/chain/types.js';
import { compactJournal, randomOwner, restartableChainOptions, startTestChain } from '../chainTestHelpers.js';
import { readDump, withoutBlocksFrom } from './stateFileDamage.js';

const readDumpHeadOrThrow = async (file: string) => {
  const head = await readDumpHead(file);
  if (head === undefined) throw new Error(`${file} has no head`);
  return head;
};

/**
 * anvil's periodic dump does not wait for its miner: a kill of the service and its anvil can leave a dump
 * holding a block's state (balances, nonces) without the block (test/chain/embeddedStopDump.test.ts measures it
 * for the dump on exit). Started from it, the chain had the block's effects and not its transactions: the
 * journal's replay of them found their nonces used, so their hashes, receipts and events were gone for good.
 * Now the state is checked against its head block at every start, and a state ahead of its blocks gives way
 * to the last good dump, which the journal brings up to date byte for byte.
 */
describe('a state dump holding a block it does not have', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('takes a fresh chain at its genesis block for a whole one (anvil reports the empty root there)', async () => {
    const fresh = await startAnvil({ chainId: 31337 });
    try {
      const { number: blockNumber, stateRoot } = await createPublicClient({
        transport: http(fresh.rpcUrl),
      }).getBlock();
      expect(blockNumber).toBe(0n);
      // The empty trie's root, though the genesis accounts hold ether: the proof's root is another.
      expect(stateRoot).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
      expect(await stateMatchesHead(fresh.rpcUrl)).toBe(true);
    } finally {
      await fresh.stop();
    }
  });

  it('restarts from the last good dump, and the journal gives the lost block back', async () => {
    const options = await restartableChainOptions('dauth-halfblock-');
    const { dataDir, database } = options;
    dirs.push(dataDir);
    const compacted = randomOwner().address;
    const journaled = randomOwner().address;
    let lostTx: Hash;
    try {
      const first = await startTestChain(options);
      const statePath = first.chain.embedded!.statePath;
      try {
        expect(await stateMatchesHead(first.chain.embedded!.rpcUrl)).toBe(true);
        await first.chain.faucet.fund({ address: compacted, native: 7n });
        expect(await compactJournal(first.chain, database)).toBe(0);
        expect(fs.existsSync(lastGoodDumpPath(statePath))).toBe(true);
        await first.chain.faucet.fund({ address: journaled, native: 9n });
        const [entry] = await database.db.selectFrom('chain_journal').select('tx_hash').execute();
        lostTx = entry!.tx_hash as Hash;

        // anvil's periodic dump can be written mid-block too, and a copy of it kept as the last good dump was the
        // start's fallback (and the journal's compaction point) with the block's transactions gone for good.
        // Such a copy is no longer kept: its sender (the faucet) has a nonce ahead of the chain's at its head.
        const { client } = first.chain.gateway;
        const { blockNumber } = await client.getTransactionReceipt({ hash: lostTx });
        const kept = (file: string) =>
          keepLastGoodDump(
            file,
            async (copy, head) => (await senderAheadOfHead(client, copy, head)) === undefined,
          );
        // A whole copy of a dump that holds the block (anvil dumps every second, rewriting its file in place).
        const whole = path.join(fs.mkdtempSync(path.join(dataDir, 'whole-')), 'state.json');
        for (;;) {
          fs.copyFileSync(statePath, whole);
          if (isWholeDump(whole) && ((await readDumpHead(whole)) ?? 0n) >= blockNumber) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const half = path.join(fs.mkdtempSync(path.join(dataDir, 'half-')), 'state.json');
        fs.writeFileSync(half, JSON.stringify(withoutBlocksFrom(readDump(whole), lostTx)));
        expect(await senderAheadOfHead(client, whole, await readDumpHeadOrThrow(whole))).toBeUndefined();
        const halfHead = await readDumpHeadOrThrow(half);
        expect(halfHead).toBe(blockNumber - 1n);
        const faucet = await client.getTransaction({ hash: lostTx });
        const faucetNonce = BigInt(faucet.nonce);
        expect(await senderAheadOfHead(client, half, halfHead)).toEqual({
          sender: faucet.from.toLowerCase(),
          nonce: String(faucetNonce + 1n),
          atHead: String(faucetNonce),
        });
        expect(await kept(half)).toBeUndefined();
        expect(fs.existsSync(lastGoodDumpPath(half))).toBe(false);
        expect(await kept(whole)).toBeGreaterThanOrEqual(blockNumber);
      } finally {
        await first.close();
      }
      // The dump as a kill can leave it: every block from the journaled transaction's on is missing (with its
      // transactions), their effects are not.
      fs.writeFileSync(statePath, JSON.stringify(withoutBlocksFrom(readDump(statePath), lostTx)));

      const second = await startTestChain(options);
      try {
        const { gateway, journal } = second.chain;
        expect(await gateway.nativeBalance(compacted)).toBe(7n);
        expect(await gateway.nativeBalance(journaled)).toBe(9n);
        // The lost transaction is on chain again, under its own hash: given back, not lost.
        const receipt = await gateway.client.getTransactionReceipt({ hash: lostTx });
        expect(receipt.status).toBe('success');
        expect(journal.startupRecovery).toMatchObject({ mode: 'replay', failed: 0 });
        expect(await stateMatchesHead(second.chain.embedded!.rpcUrl)).toBe(true);
        const aside = fs
          .readdirSync(path.dirname(statePath))
          .filter((f) => f.startsWith('state.json.inconsistent-'));
        expect(aside).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await database.close();
    }
  }, 90_000);
});
