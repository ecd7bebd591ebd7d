/**
 * How fast the chain journal gives a crashed embedded chain its lost transactions back, and how soon the
 * service answers again:
 *
 * 1. A child dauth sends BENCH_LOST (1,000) transactions after the chain's last state dump and is SIGKILLed
 *    with its anvil (packages/server/test/chain/crash/lostTransactionsChild.ts).
 * 2. dauth starts again on the same DATA_DIR: the journal recovery replays them (original order, blocks and
 *    timestamps) before the services are ready; then one consumption is sent at once.
 *
 *   npm run bench:recovery
 *   BENCH_LOST=200 npm run bench:recovery
 *
 * Prints one JSON line: replayed, recovery_ms, replayed_per_second (target ≥ 200), start_to_listening_ms (the
 * port answers), start_to_ready_ms (services ready, /readyz 200) and start_to_first_consumption_ms (answered
 * 200 with its transaction).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCipheriv } from 'node:crypto';
import { getFreePort } from '@dauth/contracts';
import pino from 'pino';
import { loadConfig } from '../packages/server/src/config.js';
import { startServer } from '../packages/server/src/server.js';
import { runUntilKilled } from '../packages/server/test/chain/crash/crashSupport.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-recovery-'));
const env = async () => {
  const port = await getFreePort('127.0.0.1');
  return {
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    LOST_TRANSACTIONS: process.env.BENCH_LOST ?? '1000',
  };
};

try {
  const run = await runUntilKilled(await env(), (line) => line.step === 'ready', 0, {
    child: path.join(root, 'packages/server/test/chain/crash/lostTransactionsChild.ts'),
    timeoutMs: 600_000,
  });
  const ready = run.lines.find((l) => l.step === 'ready');
  if (!ready) throw new Error(`the child did not get ready: ${run.stderr}`);
  const provider = ready.provider as { clientId: string; cuid: string; key: string; iv: string };
  const slotId = (ready.player as { slotId: string }).slotId;

  const started = performance.now();
  const config = loadConfig(await env());
  // What the recovery logs (replayed, and each transaction it could not give back) goes to stderr.
  const logger = pino({ level: process.env.BENCH_LOG_LEVEL ?? 'warn' }, pino.destination(2));
  let listening = 0;
  // The port answers (503 with the recovery's progress) before the services are ready (src/server.ts).
  const server = await startServer(config, {
    logger,
    onListening: () => (listening = performance.now() - started),
  });
  const servicesReady = performance.now() - started;
  const cipher = createCipheriv(
    'aes-256-ctr',
    Buffer.from(provider.key, 'hex'),
    Buffer.from(provider.iv, 'hex'),
  );
  const payload = JSON.stringify({
    client_id: provider.clientId,
    user_dbkey: slotId,
    amount: '1',
    cuid: provider.cuid,
  });
  const message = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()]).toString('hex');
  const answer = await fetch(`${server.url}/v1/development-api/increase_used_content_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ encrypted_message: message }),
  });
  const firstConsumption = performance.now() - started;
  const report = server.services.chain.journal.startupRecovery;
  const recoveryMs = (report?.finishedAt ?? 0) - (report?.startedAt ?? 0);
  console.log(
    JSON.stringify({
      lost: ready.lost,
      replayed: report?.replayed,
      failed: report?.failed,
      mode: report?.mode,
      recovery_ms: recoveryMs,
      compare_ms: report?.compareMs,
      replayed_per_second: Number((((report?.replayed ?? 0) * 1000) / Math.max(1, recoveryMs)).toFixed(0)),
      start_to_listening_ms: Math.round(listening),
      start_to_ready_ms: Math.round(servicesReady),
      first_consumption_status: answer.status,
      start_to_first_consumption_ms: Math.round(firstConsumption),
    }),
  );
  await server.close();
} finally {
  if (process.env.BENCH_KEEP) console.error(`kept ${dataDir}`);
  else fs.rmSync(dataDir, { recursive: true, force: true });
}
