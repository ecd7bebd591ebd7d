import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import {
  genesisTimePath,
  isWholeDump,
  lastGoodDumpPath,
  readDumpHead,
  restoreLastGoodDump,
} from '../../../src/chain/stateDump.js';
import {
  compactJournal,
  journalEntryCount,
  randomOwner,
  restartableChainOptions,
  startTestChain,
} from '../chainTestHelpers.js';
import type { Hash } from '../../../src/chain/types.js';
import { cutShort, readDump, withoutBlocksFrom } from './stateFileDamage.js';

/**
 * anvil rewrites its state file in place (O_TRUNC, then write): a kill of the service and its anvil during
 * one of the dumps every few seconds leaves half a file, which anvil refuses to load. Before, the service
 * then refused to start, and the journal, compacted up to that file's earlier head, could not rebuild the
 * chain. Now the service keeps the newest complete dump it read and compacts only up to it.
 */
describe('a state dump cut short by a kill', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('restarts from the last complete dump the service kept, and the journal gives back the rest', async () => {
    const options = await restartableChainOptions('dauth-dump-');
    const { dataDir, database } = options;
    dirs.push(dataDir);
    const journalEntries = () => journalEntryCount(database);
    const compacted = randomOwner().address;
    const journaled = randomOwner().address;
    try {
      const first = await startTestChain(options);
      const statePath = first.chain.embedded!.statePath;
      try {
        await first.chain.faucet.fund({ address: compacted, native: 7n });
        // Compacted once a dump holds its block: the journal no longer has it, only the kept copy does.
        expect(await compactJournal(first.chain, database)).toBe(0);
        // The copy is whole and its head is the one the service read without parsing it: what this
        // build's anvil writes is what stateDump.ts expects (its last field, its head's field).
        const copy = lastGoodDumpPath(statePath);
        const parsed = JSON.parse(fs.readFileSync(copy, 'utf8')) as { best_block_number: number };
        expect(parsed.best_block_number).toBeGreaterThan(0);
        expect(await readDumpHead(copy)).toBe(BigInt(parsed.best_block_number));
        expect(isWholeDump(copy)).toBe(true);
        await first.chain.faucet.fund({ address: journaled, native: 9n });
        expect(await journalEntries()).toBe(1);
      } finally {
        await first.close();
      }
      // The dump anvil was writing when the kill came: its first half.
      cutShort(statePath);

      const second = await startTestChain(options);
      try {
        const { gateway, journal } = second.chain;
        expect(await gateway.nativeBalance(compacted)).toBe(7n);
        expect(await gateway.nativeBalance(journaled)).toBe(9n);
        expect(journal.startupRecovery).toMatchObject({ mode: 'replay', failed: 0 });
        expect(journal.startupRecovery?.replayed).toBeGreaterThanOrEqual(1);
        // The damaged file is kept beside it for a post-mortem.
        const damaged = fs
          .readdirSync(path.dirname(statePath))
          .filter((f) => f.startsWith('state.json.damaged-'));
        expect(damaged).toHaveLength(1);
      } finally {
        await second.close();
      }
    } finally {
      await database.close();
    }
  }, 90_000);

  // The journal's first round keeps a dump 30 s after start: a kill mid-dump before it left the service
  // unable to start ("The embedded chain did not start"), though the journal held every transaction; a dump
  // holding a block it does not have was started as it was, the journal's replay of that block refused.
  it.each([
    ['cut short', 'damaged'],
    ['holding a block it does not have', 'inconsistent'],
    ['never written (killed before its first dump)', undefined],
  ] as const)(
    'starts the chain anew and replays the whole journal when a dump %s came before any was kept',
    async (damage, label) => {
      // No periodic dump: the start's compaction finds no file to keep, the dump on exit is the only one.
      const options = {
        ...(await restartableChainOptions('dauth-dump-')),
        embedded: { stateIntervalSeconds: 3600 },
      };
      const { dataDir, database } = options;
      dirs.push(dataDir);
      const funded = randomOwner().address;
      try {
        const first = await startTestChain(options);
        const statePath = first.chain.embedded!.statePath;
        const rpc = createPublicClient({ transport: http(first.chain.embedded!.rpcUrl) });
        let times: bigint[];
        let fundingTx: Hash;
        try {
          await first.chain.faucet.fund({ address: funded, native: 7n });
          const newest = await database.db
            .selectFrom('chain_journal')
            .select('tx_hash')
            .orderBy('seq', 'desc')
            .executeTakeFirstOrThrow();
          fundingTx = newest.tx_hash as Hash;
          const head = await rpc.getBlockNumber();
          const blocks = await Promise.all(
            Array.from({ length: Number(head) + 1 }, (_, n) => rpc.getBlock({ blockNumber: BigInt(n) })),
          );
          times = blocks.map((b) => b.timestamp);
          expect(fs.existsSync(lastGoodDumpPath(statePath))).toBe(false);
          expect(await journalEntryCount(database)).toBeGreaterThan(5); // the deployment and the funding
        } finally {
          await first.close();
        }
        const recorded = JSON.parse(fs.readFileSync(genesisTimePath(statePath), 'utf8')) as {
          timestamp: number;
        };
        expect(BigInt(recorded.timestamp)).toBe(times[0]);
        if (label === 'damaged') cutShort(statePath);
        else if (label === 'inconsistent')
          fs.writeFileSync(statePath, JSON.stringify(withoutBlocksFrom(readDump(statePath), fundingTx)));
        else fs.rmSync(statePath);

        const startedAt = BigInt(Math.floor(Date.now() / 1000));
        const second = await startTestChain(options);
        try {
          const { gateway, journal, info } = second.chain;
          const client = createPublicClient({ transport: http(second.chain.embedded!.rpcUrl) });
          expect(journal.startupRecovery, damage).toMatchObject({ mode: 'replay', failed: 0 });
          expect(await gateway.nativeBalance(funded)).toBe(7n);
          expect((await client.getTransactionReceipt({ hash: fundingTx })).status).toBe('success');
          // The same contracts at the same addresses (replayed, not deployed again), every block at its time.
          for (const address of Object.values(info.contracts))
            expect(await client.getCode({ address })).not.toBeUndefined();
          const blocks = await Promise.all(times.map((_, n) => client.getBlock({ blockNumber: BigInt(n) })));
          expect(blocks.map((b) => b.timestamp)).toEqual(times);
          // And the clock is back at now for what comes next.
          await second.chain.faucet.fund({ address: funded, native: 1n });
          expect((await client.getBlock()).timestamp).toBeGreaterThanOrEqual(startedAt);
          expect(await gateway.nativeBalance(funded)).toBe(8n);
          const aside = fs.readdirSync(path.dirname(statePath)).filter((f) => f.startsWith('state.json.'));
          expect(aside).toEqual(label ? [expect.stringMatching(`^state\\.json\\.${label}-\\d+$`)] : []);
        } finally {
          await second.close();
        }
      } finally {
        await database.close();
      }
    },
    90_000,
  );

  it('restores nothing when the state file is whole or no copy was kept', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-dump-'));
    dirs.push(dir);
    const statePath = path.join(dir, 'state.json');
    fs.writeFileSync(statePath, dumpText(3));
    fs.writeFileSync(lastGoodDumpPath(statePath), dumpText(2));
    expect(restoreLastGoodDump(statePath)).toBeUndefined();
    expect(await readDumpHead(statePath)).toBe(3n);

    fs.writeFileSync(statePath, '{"block":{"number":"0x3"},"accounts":{},"best_block_nu');
    fs.rmSync(lastGoodDumpPath(statePath));
    expect(restoreLastGoodDump(statePath)).toBeUndefined();
    expect(fs.readFileSync(statePath, 'utf8')).toBe('{"block":{"number":"0x3"},"accounts":{},"best_block_nu');
  });

  it('reads no cut-short dump as whole, and a head only once its digits are all there', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-dump-'));
    dirs.push(dir);
    const file = path.join(dir, 'state.json');
    // The head's field straddles the scanner's 1 MiB reads: a field split between two reads is still found.
    const unpadded = dumpText(123456).indexOf(',"best_block_number":');
    const whole = dumpText(123456, 'a'.repeat((1 << 20) - 10 - unpadded));
    const headAt = whole.indexOf(',"best_block_number":');
    expect(headAt).toBe((1 << 20) - 10);
    fs.writeFileSync(file, whole);
    expect(isWholeDump(file)).toBe(true);
    expect(await readDumpHead(file)).toBe(123456n);
    const digitsEnd = headAt + ',"best_block_number":123456'.length;
    for (const cut of [1, 100, headAt + 5, digitsEnd - 1, digitsEnd, digitsEnd + 1, whole.length - 1]) {
      fs.writeFileSync(file, whole.slice(0, cut));
      expect(isWholeDump(file), `cut at ${cut}`).toBe(false);
      // 12345 of 123456 is not a head: the number counts only once a byte after it was written.
      expect(await readDumpHead(file), `cut at ${cut}`).toBe(cut > digitsEnd ? 123456n : undefined);
    }
    // A dump anvil ended with a newline is whole too.
    fs.writeFileSync(file, `${whole}\n`);
    expect(isWholeDump(file)).toBe(true);
  });
});

/** A dump as anvil 1.x lays it out (fields in its order), `padding` inside its accounts. */
function dumpText(head: number, padding = ''): string {
  return (
    `{"block":{"number":"0x${head.toString(16)}"},"accounts":{"0x00":{"code":"${padding}"}},` +
    `"best_block_number":${head},"blocks":[],"transactions":[],"historical_states":null}`
  );
}
