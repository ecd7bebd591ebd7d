import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dumpHead, lastGoodDumpPath, restoreLastGoodDump } from '../../../src/chain/stateDump.js';
import { openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { journalEntryCount, randomOwner, startTestChain } from '../chainTestHelpers.js';

/**
 * anvil rewrites its state file in place (O_TRUNC, then write): a kill of the service and its anvil during
 * one of the dumps every few seconds leaves half a file, which anvil refuses to load. Before, the service
 * then refused to start, and the journal, compacted up to that file's earlier head, could not rebuild the
 * chain. Now the service keeps the newest complete dump it read and compacts only up to it.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a state dump cut short by a kill', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('restarts from the last complete dump the service kept, and the journal gives back the rest', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-dump-'));
    dirs.push(dataDir);
    const database = openDatabase({ sqlitePath: path.join(dataDir, 'dauth.sqlite') });
    await migrateToLatest(database.db);
    const options = {
      dataDir,
      database,
      embedded: { stateIntervalSeconds: 1 },
      // Compaction only when the test asks for it.
      journalMaintenance: { intervalMs: 3_600_000 },
    };
    const journalEntries = () => journalEntryCount(database);
    const compacted = randomOwner().address;
    const journaled = randomOwner().address;
    try {
      const first = await startTestChain(options);
      const statePath = first.chain.embedded!.statePath;
      try {
        await first.chain.faucet.fund({ address: compacted, native: 7n });
        // Compacted once a dump holds its block: the journal no longer has it, only the kept copy does.
        for (let i = 0; i < 100 && (await journalEntries()) > 0; i++) {
          await first.chain.journal.maintenance.compact();
          await sleep(100);
        }
        expect(await journalEntries()).toBe(0);
        const copy = fs.readFileSync(lastGoodDumpPath(statePath), 'utf8');
        expect(dumpHead(copy)).toBeGreaterThan(0n);
        await first.chain.faucet.fund({ address: journaled, native: 9n });
        expect(await journalEntries()).toBe(1);
      } finally {
        await first.close();
      }
      // The dump anvil was writing when the kill came: its first half.
      const whole = fs.readFileSync(statePath);
      fs.writeFileSync(statePath, whole.subarray(0, whole.length >> 1));

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

  it('restores nothing when the state file is whole or no copy was kept', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-dump-'));
    dirs.push(dir);
    const statePath = path.join(dir, 'state.json');
    fs.writeFileSync(statePath, '{"best_block_number":3}');
    fs.writeFileSync(lastGoodDumpPath(statePath), '{"best_block_number":2}');
    expect(restoreLastGoodDump(statePath)).toBeUndefined();
    expect(dumpHead(fs.readFileSync(statePath, 'utf8'))).toBe(3n);

    fs.writeFileSync(statePath, '{"best_block_nu');
    fs.rmSync(lastGoodDumpPath(statePath));
    expect(restoreLastGoodDump(statePath)).toBeUndefined();
    expect(fs.readFileSync(statePath, 'utf8')).toBe('{"best_block_nu');
  });
});
