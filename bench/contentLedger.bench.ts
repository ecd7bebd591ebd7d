/**
 * Micro-benchmark: the content ledger's SQL per consumption record on a SQLite file (WAL, as `npm start`
 * runs it), the part of `increase_used_content_token`'s server CPU that is the ledger's. Each round admits
 * records in group commits of BENCH_GROUP (20) over BENCH_SLOTS (10) slots (`reserveMany`, as the
 * consumption service's admission does at 100 callers), and every BENCH_BATCH (100) records opens and
 * completes a batch of them (`openBatch`, `completeBatch`, as the usage batcher does); CPU per record of
 * each phase (`process.cpuUsage`). The table grows over the rounds, as it does in service.
 *
 * BENCH_LEDGER_MODULE=<file> also measures another version of the store (e.g. an older commit's
 * `contentLedgerStore.ts` copied out with its imports made absolute), on a database of its own, its rounds
 * alternating with this one's so load from elsewhere on the machine hits both alike. Not a test: it
 * asserts nothing.
 *
 *   node --conditions development --import tsx bench/contentLedger.bench.ts
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';
import { ContentLedgerStore, type NewUsage } from '../packages/server/src/stores/contentLedgerStore.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000);
const GROUP = Number(process.env.BENCH_GROUP ?? 20);
const SLOTS = Number(process.env.BENCH_SLOTS ?? 10);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);

type Ledger = Pick<ContentLedgerStore, 'insertBalance' | 'reserveMany' | 'openBatch' | 'completeBatch'>;
type LedgerClass = new (db: ReturnType<typeof openDatabase>['db']) => Ledger;

async function setUp(Store: LedgerClass) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-ledger-'));
  const handle = openDatabase({ sqlitePath: path.join(dir, 'dauth.sqlite') });
  await migrateToLatest(handle.db);
  const ledger = new Store(handle.db);
  const slots = Array.from(
    { length: SLOTS },
    (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}` as `0x${string}`,
  );
  for (const slot of slots)
    await ledger.insertBalance('bench-game', slot, { balance: 10n ** 30n, used: 0n, block: 1n });
  let block = 2n;
  const usage = (i: number): NewUsage => ({
    clientId: 'bench-client',
    cuid: 'bench-game',
    slot: slots[i % SLOTS]!,
    slotId: String(1_000_000_000_000_000_000n + BigInt(i % SLOTS)),
    amount: 1n,
    requestKey: undefined,
  });
  /** One round: CPU (ms) of admission and of the batches, per record. */
  const round = async () => {
    let admitCpu = 0;
    let batchCpu = 0;
    let pending: string[] = [];
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    for (let n = 0; n < RECORDS; n += GROUP) {
      let t = cpu();
      const results = await ledger.reserveMany(Array.from({ length: GROUP }, (_, i) => usage(n + i)));
      admitCpu += cpu() - t;
      for (const r of results) if (r.kind === 'accepted') pending.push(r.record.id);
      if (pending.length >= BATCH) {
        t = cpu();
        const { batch, records } = await ledger.openBatch(pending, block);
        block++;
        await ledger.completeBatch(batch.id, {
          txHash: `0x${randomUUID().replaceAll('-', '').padEnd(64, '0')}`,
          blockNumber: block,
          records: records.map((r, i) => ({
            id: r.id,
            balanceAfter: 10n ** 30n - BigInt(i),
            usedAfter: BigInt(i),
          })),
        });
        batchCpu += cpu() - t;
        pending = [];
      }
    }
    return {
      admit_us_per_record: Number(((admitCpu * 1000) / RECORDS).toFixed(1)),
      batch_us_per_record: Number(((batchCpu * 1000) / RECORDS).toFixed(1)),
    };
  };
  return { round, close: () => handle.close(), dir };
}

const sides: { name: string; Store: LedgerClass }[] = [];
if (process.env.BENCH_LEDGER_MODULE) {
  const module = (await import(path.resolve(process.env.BENCH_LEDGER_MODULE))) as {
    ContentLedgerStore: LedgerClass;
  };
  sides.push({ name: 'other', Store: module.ContentLedgerStore });
}
sides.push({ name: 'this', Store: ContentLedgerStore });
const set = await Promise.all(sides.map(async (s) => ({ ...s, bench: await setUp(s.Store) })));
for (const s of set) await s.bench.round(); // warm-up (JIT, statement caches)
const results = new Map<string, Awaited<ReturnType<(typeof set)[0]['bench']['round']>>[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const s of set) results.set(s.name, [...(results.get(s.name) ?? []), await s.bench.round()]);
}
for (const s of set) {
  await s.bench.close();
  fs.rmSync(s.bench.dir, { recursive: true, force: true });
}
console.log(
  JSON.stringify({
    bench: 'content ledger SQL per record (SQLite file)',
    group: GROUP,
    slots: SLOTS,
    batch: BATCH,
    records_per_round: RECORDS,
    load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
    rounds: Object.fromEntries(results),
  }),
);
