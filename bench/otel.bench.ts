/**
 * What OpenTelemetry tracing costs on a hot route (issue 42; docs/operations.md, "Traces").
 *
 *   npm run bench:otel                               # 3 rounds of 10 s per mode, 50 connections
 *   BENCH_SECONDS=5 BENCH_REPEAT=1 npm run bench:otel
 *
 * The same server is started three ways, each in a child process of its own (its own core; autocannon
 * and the OTLP sink in this process): `off` (no OTEL_* variable: no SDK loaded, the API's no-op tracer),
 * `on` (OTEL_EXPORTER_OTLP_ENDPOINT at a local OTLP/HTTP sink, protobuf, every request sampled) and
 * `on, json` (http/json). Measured route: `GET /v1/dev-user/mfa` with a login JWT (the bearer check, two
 * database reads: a request span and its statement spans when on). Rounds alternate the modes; the median
 * of each is kept. Prints a table and one JSON line (BENCH_JSON too, bench/summary.ts).
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { writeBenchSummary } from './summary.js';

const thisFile = fileURLToPath(import.meta.url);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const CONNECTIONS = 50;

type Mode = 'off' | 'on' | 'on-json';

interface Ready {
  url: string;
  token: string;
  /** Whether the server really traces (services.tracing.enabled). */
  tracing: boolean;
}

/** The child: a dauth with or without tracing, and a signed-in user; tells the parent where. */
async function serve(mode: Mode, sink: string): Promise<void> {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const pino = (await import('pino')).default;
  const { loadConfig } = await import('../packages/server/src/config.js');
  const { startServer } = await import('../packages/server/src/server.js');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-otel-bench-'));
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SCRYPT_LOG_N: '14',
    RATE_LIMITS: 'login_address=100000/1m',
    ...(mode === 'off'
      ? {}
      : {
          OTEL_EXPORTER_OTLP_ENDPOINT: sink,
          OTEL_EXPORTER_OTLP_PROTOCOL: mode === 'on-json' ? 'http/json' : 'http/protobuf',
          // Large batches: the sink sees the same spans in fewer exports, as a collector would.
          OTEL_BSP_MAX_QUEUE_SIZE: '65536',
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '2048',
          OTEL_BSP_SCHEDULE_DELAY: '1000',
        }),
  });
  const server = await startServer(config, { logger: pino({ level: 'warn' }) });
  const post = (p: string, body: unknown) =>
    fetch(`${server.url}${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const email = `bench-${Date.now()}@example.com`;
  const password = 'correct horse battery';
  if ((await post('/v1/dev-user/register', { email, password })).status !== 201) throw new Error('register');
  const login = (await (await post('/v1/dev-user/login_devuser', { email, password })).json()) as {
    token: string;
  };
  const ready: Ready = { url: server.url, token: login.token, tracing: server.services.tracing.enabled };
  process.send!(ready);
  process.on('message', (m) => {
    if (m === 'stop') void server.close().then(() => process.exit(0));
  });
}

/** An OTLP/HTTP sink: answers 200 to every export, counting requests and bytes. */
async function startSink(): Promise<{
  url: string;
  exports: () => number;
  bytes: () => number;
  close(): void;
}> {
  let exports = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': String(req.headers['content-type'] ?? 'application/x-protobuf') });
      res.end(String(req.headers['content-type']).includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    bytes: () => bytes,
    close: () => server.close(),
  };
}

async function measure(mode: Mode, sinkUrl: string) {
  const child = fork(thisFile, ['--serve', mode, sinkUrl], {
    execArgv: ['--conditions', 'development', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) => reject(new Error(`server (${mode}) exited with ${code}`)));
  });
  const request = {
    url: `${ready.url}/v1/dev-user/mfa`,
    headers: { authorization: `Bearer ${ready.token}` },
  };
  // Warm-up: the JIT, the statement cache, the token cache.
  await autocannon({ ...request, connections: CONNECTIONS, duration: 2 });
  const result = await autocannon({ ...request, connections: CONNECTIONS, duration: SECONDS });
  child.send('stop');
  await new Promise((resolve) => child.once('exit', resolve));
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${mode}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return {
    mode,
    tracing: ready.tracing,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const sink = await startSink();
  const modes: Mode[] = ['off', 'on', 'on-json'];
  const runs: Awaited<ReturnType<typeof measure>>[] = [];
  for (let round = 0; round < REPEAT; round++) {
    for (const mode of modes) runs.push(await measure(mode, sink.url));
  }
  sink.close();
  const rows = modes.map((mode) => {
    const mine = runs.filter((r) => r.mode === mode);
    return {
      mode,
      tracing: mine[0]!.tracing,
      rps: Math.round(median(mine.map((r) => r.rps))),
      p50_ms: median(mine.map((r) => r.p50)),
      p99_ms: median(mine.map((r) => r.p99)),
    };
  });
  const off = rows[0]!.rps;
  console.log(`GET /v1/dev-user/mfa, ${CONNECTIONS} connections, ${SECONDS} s × ${REPEAT} (median)`);
  console.log('mode      tracing  req/s    p50 ms  p99 ms  vs off');
  for (const r of rows) {
    const delta = r.mode === 'off' ? '' : `${(((r.rps - off) / off) * 100).toFixed(1)}%`;
    console.log(
      `${r.mode.padEnd(9)} ${String(r.tracing).padEnd(8)} ${String(r.rps).padEnd(8)} ${String(r.p50_ms).padEnd(7)} ${String(r.p99_ms).padEnd(7)} ${delta}`,
    );
  }
  console.log(`OTLP sink: ${sink.exports()} exports, ${(sink.bytes() / 1e6).toFixed(1)} MB`);
  if (rows[0]!.tracing || !rows[1]!.tracing || sink.exports() === 0) {
    throw new Error('tracing was not off and on as asked (or nothing was exported)');
  }
  const summary = { bench: 'otel', connections: CONNECTIONS, seconds: SECONDS, repeat: REPEAT, rows };
  console.log(JSON.stringify(summary));
  writeBenchSummary(summary);
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt >= 0) {
  void serve(process.argv[serveAt + 1] as Mode, process.argv[serveAt + 2]!).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
