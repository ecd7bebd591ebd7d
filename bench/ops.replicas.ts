/**
 * `npm run bench:ops -- --replicas N`: bundled sponsored operations per second through N replicas against
 * one, measured side by side on one external anvil and one PostgreSQL schema (issue 16). Each replica is its
 * own process (bench/ops.replica.child.ts) with its own relayer key from one RELAYER_PRIVATE_KEYS list.
 * Replica 0 is "one replica"; replicas 1…N are "N replicas". Rounds alternate between the two, the same
 * total number of callers and operations in each; the callers are split evenly over the N replicas.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAnvil } from '@dauth/contracts';
import pg from 'pg';
import { generatePrivateKey } from 'viem/accounts';
import { EMBEDDED_CHAIN_KEYS } from '../packages/server/src/chain/devAccounts.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const here = path.dirname(fileURLToPath(import.meta.url));

interface Replica {
  child: ChildProcess;
  next(): Promise<Record<string, unknown>>;
  ask(message: Record<string, unknown>): Promise<Record<string, unknown>>;
}

function spawnReplica(env: Record<string, string>): Promise<Replica> {
  const child = fork(path.join(here, 'ops.replica.child.ts'), {
    execArgv: ['--conditions', 'development', '--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const inbox: Record<string, unknown>[] = [];
  const waiting: ((m: Record<string, unknown>) => void)[] = [];
  child.on('message', (m: Record<string, unknown>) => {
    if (m.error) {
      console.error(`replica ${env.REPLICA_ID} failed: ${String(m.error)}`);
      process.exit(1);
    }
    const w = waiting.shift();
    if (w) w(m);
    else inbox.push(m);
  });
  child.on('exit', (code) => {
    if (code !== 0 && code !== null) {
      console.error(`replica ${env.REPLICA_ID} exited with ${code}`);
      process.exit(1);
    }
  });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) => {
      const m = inbox.shift();
      if (m) resolve(m);
      else waiting.push(resolve);
    });
  const replica: Replica = {
    child,
    next,
    ask: (message) => {
      child.send(message);
      return next();
    },
  };
  return next().then(() => replica);
}

export async function benchReplicas(o: {
  replicas: number;
  concurrency: number;
  ops: number;
  rounds: number;
}) {
  const node = await startAnvil();
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const db = openDatabase({ databaseUrl: DATABASE_URL, pgSchema: schema });
  await migrateToLatest(db.db);
  await db.close();
  const keys = Array.from({ length: o.replicas + 1 }, () => generatePrivateKey());
  const dirs: string[] = [];
  const replicas: Replica[] = [];
  const envOf = (id: number): Record<string, string> => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-replica-'));
    dirs.push(dir);
    return {
      DATA_DIR: dir,
      LOG_LEVEL: 'silent',
      DATABASE_URL,
      BENCH_PG_SCHEMA: schema,
      MASTER_KEY: 'cd'.repeat(32),
      ADMIN_API_KEY: 'bench-admin-key-0123456789',
      CHAIN_RPC_URL: node.rpcUrl,
      DEPLOYER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.deployer,
      PAYMASTER_SIGNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.paymasterSigner,
      OPERATOR_OWNER_PRIVATE_KEY: EMBEDDED_CHAIN_KEYS.operatorOwner,
      RELAYER_PRIVATE_KEYS: keys.join(','),
      REPLICA_ID: String(id),
      BENCH_FUND: id === 0 ? '1' : '0',
    };
  };
  const one: number[] = [];
  const many: number[] = [];
  const transactions = { one: 0, many: 0 };
  try {
    // Replica 0 deploys and funds; the others reuse the deployment record.
    replicas.push(await spawnReplica(envOf(0)));
    for (let id = 1; id <= o.replicas; id++) replicas.push(await spawnReplica(envOf(id)));
    // Wallet setup one replica at a time: the faucet is the one deployer account, whose nonces must not race.
    await replicas[0]!.ask({ cmd: 'setup', callers: o.concurrency });
    for (const r of replicas.slice(1))
      await r.ask({ cmd: 'setup', callers: Math.ceil(o.concurrency / o.replicas) });
    for (let round = 0; round < o.rounds; round++) {
      let start = performance.now();
      const single = await replicas[0]!.ask({ cmd: 'round', ops: o.ops });
      one.push(o.ops / ((performance.now() - start) / 1000));
      transactions.one += Number(single.transactions);
      start = performance.now();
      const share = Math.ceil(o.ops / o.replicas);
      const answers = await Promise.all(replicas.slice(1).map((r) => r.ask({ cmd: 'round', ops: share })));
      many.push((share * o.replicas) / ((performance.now() - start) / 1000));
      transactions.many += answers.reduce((n, a) => n + Number(a.transactions), 0);
    }
  } finally {
    for (const r of replicas) await r.ask({ cmd: 'close' }).catch(() => undefined);
    await node.stop();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `\nBundled sponsored ERC-20 transfers on one external anvil and one PostgreSQL: ${o.concurrency} callers, ` +
      `${o.rounds} alternating rounds of ${o.ops} operations`,
  );
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  console.log('| setup | median ops/s | ops/s per round | bundles |');
  console.log('|---|---:|---|---:|');
  console.log(
    `| 1 replica | ${median(one).toFixed(0)} | ${one.map((r) => r.toFixed(0)).join(', ')} | ${transactions.one} |`,
  );
  console.log(
    `| ${o.replicas} replicas | ${median(many).toFixed(0)} | ${many.map((r) => r.toFixed(0)).join(', ')} | ${transactions.many} |`,
  );
  console.log(
    `\n${o.replicas} replicas / 1 replica, by median round: ${(median(many) / median(one)).toFixed(2)}x`,
  );
}
