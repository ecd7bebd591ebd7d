/**
 * Sponsored operations per second, end to end on the embedded chain: `submitOperation` (estimate, sponsor,
 * sign, bundle, `handleOps`, receipt, per-operation result) with N concurrent callers, each with its own
 * wallet sending ERC-20 transfers. Bundled (the service's default) versus one operation per transaction.
 *
 *   npm run bench:ops                      # 50 concurrent callers, 500 operations per mode
 *   npm run bench:ops -- --concurrency 50 --ops 1000
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { generatePrivateKey } from 'viem/accounts';
import {
  type ChainServicesOptions,
  createChainServices,
} from '../packages/server/src/chain/chainServices.js';
import { ownerFromPrivateKey } from '../packages/server/src/chain/operations/operationOwner.js';
import { loadConfig } from '../packages/server/src/config.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { migrateToLatest } from '../packages/server/src/db/migrate.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '50' },
    ops: { type: 'string', default: '500' },
  },
});
const concurrency = Number(values.concurrency);
const totalOps = Number(values.ops);

interface ModeResult {
  mode: string;
  ops: number;
  seconds: number;
  opsPerSecond: number;
  transactions: number;
  p50: number;
  p95: number;
  deployOpsPerSecond: number;
}

async function runMode(mode: string, options: ChainServicesOptions): Promise<ModeResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-'));
  const database = openDatabase({ sqlitePath: ':memory:' });
  await migrateToLatest(database.db);
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const chain = await createChainServices(
    config,
    { logger: pino({ level: 'silent' }), db: database.db },
    options,
  );
  try {
    const token = chain.info.contracts.token;
    const receiver = ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex')).address;
    const owners = Array.from({ length: concurrency }, () =>
      ownerFromPrivateKey(Buffer.from(generatePrivateKey().slice(2), 'hex')),
    );
    for (const owner of owners) {
      await chain.faucet.fund({ address: chain.gateway.walletAddress(owner.address, 0n), token: 10n ** 24n });
    }
    const transfer = (owner: (typeof owners)[number]) =>
      chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [chain.calls.erc20Transfer(token, receiver, 1n)],
      });

    // Every caller's first operation also deploys its wallet.
    const deployStart = performance.now();
    await Promise.all(owners.map(transfer));
    const deploySeconds = (performance.now() - deployStart) / 1000;

    // Closed loop: each caller sends its next operation as soon as the previous one returned.
    const latencies: number[] = [];
    const transactions = new Set<string>();
    let remaining = totalOps;
    const start = performance.now();
    await Promise.all(
      owners.map(async (owner) => {
        while (remaining > 0) {
          remaining -= 1;
          const t0 = performance.now();
          const result = await transfer(owner);
          latencies.push(performance.now() - t0);
          if (!result.success) throw new Error(`operation reverted: ${result.revertReason}`);
          transactions.add(result.txHash);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
    return {
      mode,
      ops: latencies.length,
      seconds,
      opsPerSecond: latencies.length / seconds,
      transactions: transactions.size,
      p50: at(0.5),
      p95: at(0.95),
      deployOpsPerSecond: concurrency / deploySeconds,
    };
  } finally {
    await chain.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const results: ModeResult[] = [];
results.push(await runMode('bundled', {}));
results.push(await runMode('one op per tx', { bundler: { maxOpsPerBundle: 1, windowMs: 0 } }));

console.log(
  `\nSponsored operations, ${concurrency} concurrent callers, ${totalOps} ERC-20 transfers per mode`,
);
console.log(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'})\n`);
console.log('| mode | ops/s | ops | transactions | p50 ms | p95 ms | first ops (deploy) ops/s |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const r of results) {
  console.log(
    `| ${r.mode} | ${r.opsPerSecond.toFixed(0)} | ${r.ops} | ${r.transactions} | ${r.p50} | ${r.p95} | ${r.deployOpsPerSecond.toFixed(0)} |`,
  );
}
const [bundled, single] = results as [ModeResult, ModeResult];
console.log(`\nbundled / one op per tx: ${(bundled.opsPerSecond / single.opsPerSecond).toFixed(1)}x`);
