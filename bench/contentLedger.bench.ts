/**
 * Micro-benchmark: the content ledger's SQL per consumption record on a SQLite file (WAL, as `npm start`
 * runs it), the part of `increase_used_content_token`'s server CPU that is the ledger's. Each round admits
 * records in group commits of BENCH_GROUP (20) over BENCH_SLOTS (10) slots (`reserveMany`, as the
 * consumption service's admission does at 100 callers), and every BENCH_BATCH (100) records opens and
 * completes a batch of them (`openBatch`, `completeBatch`, as the usage batcher does); CPU per record of
 * each phase (`process.cpuUsage`). The table grows over the rounds, as it does in service.
 *
 * BENCH_LEDGER_REF=<git ref> also measures that commit's store: the ref is checked out in a scratch worktree
 * (removed at the end) with hard links of this tree's node_modules, and its side runs entirely on its own
 * modules (its `openDatabase`, migrations and store) on a database of its own, its rounds alternating with
 * this one's so load from elsewhere on the machine hits both alike. Not a test: it asserts nothing.
 *
 * Why a whole tree and not a copied file: the store finds the native SQLite handle behind a `Db` in its own
 * `db/database.ts`'s registry (`nativeSqlite`). A store copied out of the tree (the earlier
 * BENCH_LEDGER_MODULE) loaded its own instance of that module — outside the repository tsx loads it as
 * CommonJS — found no handle for a database this tree opened, and ran the Kysely fallback: 1.3–1.5× the CPU
 * per record of the same code (docs/performance-content.md, round 20). Each side now opens its database with
 * its own tree's `openDatabase`, and the run stops if a side's store cannot see its native handle.
 *
 *   node --conditions development --import tsx bench/contentLedger.bench.ts
 *   BENCH_LEDGER_REF=HEAD~3 node --conditions development --import tsx bench/contentLedger.bench.ts
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as thisDatabase from '../packages/server/src/db/database.js';
import * as thisMigrate from '../packages/server/src/db/migrate.js';
import { ContentLedgerStore, type NewUsage } from '../packages/server/src/stores/contentLedgerStore.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 20_000);
const GROUP = Number(process.env.BENCH_GROUP ?? 20);
const SLOTS = Number(process.env.BENCH_SLOTS ?? 10);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);

type Ledger = Pick<ContentLedgerStore, 'insertBalance' | 'reserveMany' | 'openBatch' | 'completeBatch'>;
type Database = ReturnType<typeof thisDatabase.openDatabase>['db'];
/** One tree's modules: its database opener and registry, its migrations, its store. */
interface Side {
  name: string;
  database: Pick<typeof thisDatabase, 'openDatabase' | 'nativeSqlite'>;
  migrate: Pick<typeof thisMigrate, 'migrateToLatest'>;
  Store: new (db: Database) => Ledger;
}

async function setUp(side: Side) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-ledger-'));
  const handle = side.database.openDatabase({ sqlitePath: path.join(dir, 'dauth.sqlite') });
  if (!side.database.nativeSqlite(handle.db)) {
    throw new Error(`${side.name}: its store would not see the native SQLite handle (Kysely fallback)`);
  }
  await side.migrate.migrateToLatest(handle.db);
  const ledger = new side.Store(handle.db);
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

if (process.env.BENCH_LEDGER_MODULE) {
  throw new Error(
    'BENCH_LEDGER_MODULE is gone: a copied store measured the Kysely fallback. Use BENCH_LEDGER_REF.',
  );
}
const root = path.resolve(import.meta.dirname, '..');
const sides: Side[] = [];
let scratch: string | undefined;
if (process.env.BENCH_LEDGER_REF) {
  const ref = process.env.BENCH_LEDGER_REF;
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-ledger-ref-'));
  execFileSync('git', ['worktree', 'add', '--quiet', '--detach', scratch, ref], {
    cwd: root,
    stdio: 'inherit',
  });
  // Hard links of this tree's dependencies (nothing here writes into them); workspaces' own node_modules too.
  const withDeps = [
    'node_modules',
    ...fs.readdirSync(path.join(root, 'packages')).map((p) => `packages/${p}/node_modules`),
  ];
  for (const dir of withDeps.filter((d) => fs.existsSync(path.join(root, d)))) {
    execFileSync('cp', ['-al', path.join(root, dir), path.join(scratch, dir)]);
  }
  const src = path.join(scratch, 'packages/server/src');
  sides.push({
    name: ref,
    database: (await import(path.join(src, 'db/database.ts'))) as Side['database'],
    migrate: (await import(path.join(src, 'db/migrate.ts'))) as Side['migrate'],
    Store: (
      (await import(path.join(src, 'stores/contentLedgerStore.ts'))) as { ContentLedgerStore: Side['Store'] }
    ).ContentLedgerStore,
  });
}
sides.push({ name: 'this', database: thisDatabase, migrate: thisMigrate, Store: ContentLedgerStore });
const set = await Promise.all(sides.map(async (s) => ({ ...s, bench: await setUp(s) })));
for (const s of set) await s.bench.round(); // warm-up (JIT, statement caches)
const results = new Map<string, Awaited<ReturnType<(typeof set)[0]['bench']['round']>>[]>();
for (let r = 0; r < ROUNDS; r++) {
  // Which side goes first alternates too, so neither always runs just after the other's collections.
  for (const s of r % 2 === 0 ? set : [...set].reverse()) {
    results.set(s.name, [...(results.get(s.name) ?? []), await s.bench.round()]);
  }
}
for (const s of set) {
  await s.bench.close();
  fs.rmSync(s.bench.dir, { recursive: true, force: true });
}
if (scratch) execFileSync('git', ['worktree', 'remove', '--force', scratch], { cwd: root });
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
