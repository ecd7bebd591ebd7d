/**
 * Content tokens on the embedded default (SQLite + embedded anvil), dauth in its own process:
 *
 * 1. Recorded consumptions per second, end to end: `increase_used_content_token` answered 200 with the
 *    `tx_hash` of the transaction that carried the record (so after inclusion), at 400 concurrent callers
 *    (closed loop, spread over 10 slots), plus how many chain transactions carried them. 400 is one full usage
 *    batch (the batcher's `maxBatch`): with fewer callers than a batch holds, every batch goes out part empty
 *    and the rate is the callers' (callers ÷ one batch cycle), not the server's (docs/performance-content.md,
 *    round 7: 3,844/s at 100 callers with dauth at 0.34 of the machine, 6,456/s at 400).
 * 2. `balance_adex` requests per second (autocannon, 100 connections) against a bare Fastify route that
 *    answers the same JSON shape from memory, measured in the same run: three alternating rounds (plus
 *    dauth's own `/healthz`, which shows the app's fixed per-request cost), the median ratio counts.
 *
 *   npm run bench:content
 *   BENCH_SECONDS=20 BENCH_CALLERS=400 BENCH_SLOTS=10 npm run bench:content
 *   BENCH_REQUEST_ID=1 npm run bench:content        # every payload carries a request_id
 *   npm run bench:content -- --journal on          # only with the chain journal (off: only without)
 *   npm run bench:content -- --block-time 2        # an external anvil mining a block every 2 s (CHAIN_RPC_URL)
 *   BENCH_CALLGRIND=1 BENCH_ROUNDS=0 BENCH_SLOTS=1 npm run bench:content -- --journal on
 *                                                  # balance_adex in instructions per request (valgrind, ≈ 15 min)
 *
 * By default (`--journal both`) two dauths run side by side, chain journal on and off (a benchmark-only
 * switch, bench/dauthEntry.ts), and BENCH_ROUNDS (3) measured consumption rounds alternate between them;
 * `chain_journal_cost` is 1 − median(on) / median(off) consumptions per second. balance_adex is measured
 * against the first (journal on): it writes nothing.
 *
 * Prints one JSON line. Targets (issue 14): ≥ 5,000 consumptions/s with ≥ 50 records per transaction on
 * average, and balance_adex ≥ 0.8 × the bare route. Every round also reports CPU per operation from /proc
 * (dauth, its embedded anvil, this load generator) and each one's share of the machine.
 * BENCH_NODE_ARGS passes flags to the dauth process (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { parseEther } from 'viem';
import { type ExternalNode, startExternalNode } from './externalNode.js';
import {
  callgrindEnabled,
  compareInstructionCounts,
  instructionCountFields,
  measuredCommand,
} from './instructionCount.js';
import { jsonPost, KeepAliveCaller } from './keepAliveCaller.js';
import { writeBenchSummary } from './summary.js';

const CALLERS = Number(process.env.BENCH_CALLERS ?? 400);
const SLOTS = Number(process.env.BENCH_SLOTS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const WITH_REQUEST_ID = process.env.BENCH_REQUEST_ID === '1';
type Journal = 'on' | 'off';
const { values: args } = parseArgs({
  options: {
    journal: { type: 'string', default: process.env.BENCH_JOURNAL ?? 'both' },
    'block-time': { type: 'string' },
  },
});
/** `--block-time N`: dauth on an external anvil that mines every N seconds (set up with instant mining). */
const BLOCK_TIME = args['block-time'] === undefined ? undefined : Number(args['block-time']);
if (!['on', 'off', 'both'].includes(args.journal)) throw new Error('--journal is on, off or both');
const JOURNAL_MODES: Journal[] = args.journal === 'both' ? ['on', 'off'] : [args.journal as Journal];
/**
 * Measured consumption rounds per journal mode (alternating with `--journal both`); the median counts. 0 skips
 * the consumption measurement and its warm-up (balance_adex only: `BENCH_ROUNDS=0 BENCH_SLOTS=1`).
 */
const JOURNAL_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** With BENCH_CALLGRIND=1: consumptions a counted round (0: count balance_adex's instructions instead). */
const CALLGRIND_CONSUMPTIONS = Number(process.env.BENCH_CALLGRIND_CONSUMPTION ?? 0);
/** Alternating balance_adex / bare / healthz rounds; 0 skips that measurement (consumption A/B runs). */
const BALANCE_ROUNDS = Number(process.env.BENCH_BALANCE_ROUNDS ?? 3);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const agent = new http.Agent({ keepAlive: true, maxSockets: CALLERS + 10 });

/** A JSON request over a keep-alive agent; answers status and text. */
function request(
  url: string,
  method: 'GET' | 'POST',
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            headers: res.headers,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Setup calls: anything but 2xx stops the benchmark (a 429 waits as told). */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await request(url, 'POST', body, headers);
  if (res.status === 429) {
    const wait = Number(res.headers['retry-after'] ?? 5);
    process.stderr.write(`setup rate limited; waiting ${wait} s\n`);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    return post(url, body, headers);
  }
  if (res.status >= 300) throw new Error(`${url} answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text) as Record<string, unknown>;
}

async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url} exited with ${child.exitCode}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** dauth in its own process, as `npm start` runs it (from the sources, with its own DATA_DIR). */
async function startDauth(journal: Journal): Promise<{
  url: string;
  adminKey: string;
  pid: number;
  node: ExternalNode | undefined;
  cleanup(): Promise<void>;
}> {
  const node = BLOCK_TIME === undefined ? undefined : await startExternalNode(BLOCK_TIME, '2000');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-content-'));
  const port = await freePort();
  const adminKey = randomBytes(24).toString('hex');
  const measured = measuredCommand('dauth', [
    // BENCH_NODE_ARGS: extra flags for the measured process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    '--conditions=development',
    '--import',
    'tsx',
    path.join(root, 'bench/dauthEntry.ts'),
  ]);
  const child = spawn(measured.command, measured.args, {
    cwd: root,
    env: {
      ...(process.env as Record<string, string>),
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ADMIN_API_KEY: adminKey,
      // The journal off is a benchmark-only switch of bench/dauthEntry.ts (its cost is what is measured).
      BENCH_JOURNAL: journal,
      // One load generator on one address drives these far past their per-address defaults.
      RATE_LIMITS: 'content_consume=10000000/1m,content_consume_cuid=10000000/1m,balance_adex=10000000/1m',
      ...node?.env,
    },
    // BENCH_DAUTH_LOG=<file>: the service's log (its stdout), e.g. with LOG_LEVEL=info, to see what it did.
    stdio: [
      'ignore',
      process.env.BENCH_DAUTH_LOG ? fs.openSync(process.env.BENCH_DAUTH_LOG, 'a') : 'ignore',
      'inherit',
    ],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/readyz`, child);
  if (node) {
    // Nothing funds the paymaster or the operator wallet on an external chain: the deployer does.
    await post(
      `${url}/v1/admin/funding`,
      { paymaster_deposit: parseEther('1000').toString(), operator: parseEther('100').toString() },
      { authorization: `Bearer ${adminKey}` },
    );
  }
  return {
    url,
    adminKey,
    pid: child.pid!,
    node,
    cleanup: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await node?.anvil.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The yardstick: a bare Fastify process answering the same JSON shape from memory. */
async function startBareFastify(): Promise<{ url: string; pid: number; cleanup(): Promise<void> }> {
  const port = await freePort();
  const source = `
    import Fastify from 'fastify';
    const app = Fastify();
    const body = { success: true, slot: '0x5FbDB2315678afecb367f032d93F642f64180aa3', balance: '999000', used_balances: '1000', cuid: 'bench-game' };
    app.get('/bare/:slot', async () => body);
    app.get('/healthz', async () => ({ status: 'ok' }));
    await app.listen({ host: '127.0.0.1', port: ${port} });
  `;
  // BENCH_BARE_NODE_ARGS: flags for the bare process (BENCH_NODE_ARGS are dauth's), e.g. --perf-basic-prof.
  const flags = process.env.BENCH_BARE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const measured = measuredCommand('bare', [...flags, '--input-type=module', '-e', source]);
  const child = spawn(measured.command, measured.args, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(`${url}/healthz`, child);
  return {
    url,
    pid: child.pid!,
    cleanup: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

/** The app backend's callback route for the slot-creating backend authorize. */
async function startCallbackServer() {
  const waiting = new Map<string, (code: string) => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        success: number;
        code: string;
        state: string;
      };
      waiting.get(body.state)?.(body.code);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/dauth/callback`,
    expect: (state: string) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('callback timeout')), 30_000);
        waiting.set(state, (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function encrypt(keyHex: string, ivHex: string, payload: unknown): string {
  const cipher = createCipheriv('aes-256-ctr', Buffer.from(keyHex, 'hex'), Buffer.from(ivHex, 'hex'));
  return Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]).toString('hex');
}

/** CPU time (ms) process `pid` used so far, from /proc (Linux); undefined elsewhere. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** The direct children of `pid` (the embedded anvil is dauth's child), from /proc (Linux). */
function childPids(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' '))
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU used by dauth, its children (the embedded anvil) and this load generator between `start()` and
 * `stop(n)`, in ms per operation and as a share of the machine's cores over the interval.
 */
function cpuMeter(pid: number) {
  const children = childPids(pid);
  const sum = (pids: number[]) => pids.reduce((total, p) => total + (cpuMs(p) ?? 0), 0);
  const server0 = cpuMs(pid);
  const chain0 = sum(children);
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  return (operations: number) => {
    const wall = performance.now() - t0;
    const server = server0 === undefined ? undefined : cpuMs(pid)! - server0;
    const chain = sum(children) - chain0;
    const ownUsage = process.cpuUsage(own0);
    const own = (ownUsage.user + ownUsage.system) / 1000;
    const per = (ms: number) => Number((ms / Math.max(1, operations)).toFixed(3));
    const share = (ms: number) => Number((ms / (wall * os.cpus().length)).toFixed(2));
    return server === undefined
      ? {}
      : {
          server_cpu_ms_per_op: per(server),
          chain_cpu_ms_per_op: per(chain),
          load_generator_cpu_ms_per_op: per(own),
          machine_share: { server: share(server), chain: share(chain), load_generator: share(own) },
        };
  };
}

const percentile = (sorted: number[], p: number) =>
  Number((sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(1));

/** A dauth process (chain journal on or off) with a provider and SLOTS funded slots, ready to consume. */
async function setUp(journal: Journal, callbacks: Awaited<ReturnType<typeof startCallbackServer>>) {
  const dauth = await startDauth(journal);
  try {
    const password = 'correct horse battery';
    const register = async (nickname: string) => {
      const email = `${nickname}-${randomBytes(4).toString('hex')}@bench.local`;
      await post(`${dauth.url}/v1/dev-user/register`, { email, password, nickname });
      const login = await post(`${dauth.url}/v1/dev-user/login_devuser`, { email, password });
      return { uuid: login.uuid as string, jwt: login.token as string };
    };
    const developer = await register('developer');
    const app = await post(
      `${dauth.url}/v1/dev-user/clients`,
      { name: 'Bench game', redirect_uris: [callbacks.url], dapp: true },
      { authorization: `Bearer ${developer.jwt}` },
    );
    const clientId = app.client_id as string;
    const clientSecret = app.client_secret as string;
    const cuid = `bench-${randomBytes(4).toString('hex')}`;
    const provider = await post(
      `${dauth.url}/v1/development-api/init_permission_provider`,
      { client_id: clientId, cuid, release_per: 50, owner_addr: `0x${randomBytes(20).toString('hex')}` },
      { authorization: `Bearer ${developer.jwt}` },
    );
    const key = provider.encryption_key as string;
    const iv = provider.encryption_iv as string;

    /** A player with a PIN wallet, native funds, a slot (backend authorize → callback → get_token) and tokens. */
    const newSlot = async (i: number) => {
      const user = await register(`player${i}`);
      const pinSalt = randomBytes(32).toString('hex');
      const pinHash = createHash('sha256').update(`123456${pinSalt}`).digest('hex');
      const pin = await post(
        `${dauth.url}/v1/pin/register`,
        { user_uuid: Number(user.uuid), pin_hash: pinHash, pin_salt: pinSalt },
        { authorization: `Bearer ${user.jwt}` },
      );
      const wallet = (pin.data as { address: string; key_share_user: string }[])[0]!;
      await post(
        `${dauth.url}/v1/admin/faucet`,
        { address: wallet.address, native: '1000000000000000000' },
        {
          authorization: `Bearer ${dauth.adminKey}`,
        },
      );
      const state = randomBytes(16).toString('base64url');
      const code = callbacks.expect(state);
      const query = new URLSearchParams({
        client_id: clientId,
        redirect_uri: callbacks.url,
        respose_type: 'code',
        state,
      });
      const authorize = await request(
        `${dauth.url}/v1/oauth-meta/authorize?${query.toString()}`,
        'GET',
        undefined,
        {
          authorization: `Bearer ${user.jwt}`,
        },
      );
      if (authorize.status !== 200) throw new Error(`authorize ${authorize.status}: ${authorize.text}`);
      const token = await request(`${dauth.url}/v1/oauth-meta/get_token`, 'POST', {
        client_id: clientId,
        client_secret: clientSecret,
        code: await code,
        grant_type: 'authorization_code',
      });
      // The slot id is a 19-digit raw JSON number: read it from the text, never through a float.
      const slotId = /"id":"?(\d+)"?/.exec(token.text)?.[1];
      const slotAddress = /"content_address":"(0x[0-9a-fA-F]{40})"/.exec(token.text)?.[1];
      if (!slotId || !slotAddress) throw new Error(`get_token: ${token.text}`);
      await post(
        `${dauth.url}/v1/development-api/user_buy_content_token`,
        {
          client_id: clientId,
          user_dbkey: slotId,
          amount: '100000000',
          cuid,
          pin_hash: pinHash,
          pin_salt: pinSalt,
          key_share_user: wallet.key_share_user,
        },
        { authorization: `Bearer ${user.jwt}` },
      );
      return { slotId, slotAddress };
    };
    const slots: { slotId: string; slotAddress: string }[] = [];
    for (let i = 0; i < SLOTS; i += 5) {
      slots.push(
        ...(await Promise.all(Array.from({ length: Math.min(5, SLOTS - i) }, (_, j) => newSlot(i + j)))),
      );
    }

    // From here on a block every BLOCK_TIME seconds: consumptions wait for blocks, batches fill meanwhile.
    await dauth.node?.intervalMining();

    // ----- 1. consumption end to end -----
    const consumeUrl = new URL(`${dauth.url}/v1/development-api/increase_used_content_token`);
    // Each caller's request is prepared once (the generator's CPU per call is taken from dauth's cores).
    const consumeRequest = (message: string) =>
      jsonPost(consumeUrl, JSON.stringify({ encrypted_message: message }));
    const requests = slots.map((s) =>
      consumeRequest(encrypt(key, iv, { client_id: clientId, user_dbkey: s.slotId, amount: '1', cuid })),
    );
    let sequence = 0;
    // One keep-alive connection per caller (bench/keepAliveCaller.ts), kept across rounds and opened before
    // a round starts, a few hundred at a time: thousands of connects at once overflow the listen backlog
    // (the kernel drops them and the caller sees its connection closed), and connecting is not what is
    // measured. One closed meanwhile is opened again.
    const connections: KeepAliveCaller[] = [];
    const connect = () => KeepAliveCaller.connect(consumeUrl.hostname, Number(consumeUrl.port));
    const openConnections = async () => {
      for (let i = 0; i < CALLERS; i += 250) {
        await Promise.all(
          Array.from({ length: Math.min(250, CALLERS - i) }, async (_, j) => {
            if (!connections[i + j] || connections[i + j]!.closed) connections[i + j] = await connect();
          }),
        );
      }
    };
    const runConsumption = async (seconds: number) => {
      const latencies: number[] = [];
      const transactions = new Set<string>();
      let errors = 0;
      await openConnections();
      const meter = cpuMeter(dauth.pid);
      const started = performance.now();
      const until = started + seconds * 1000;
      await Promise.all(
        Array.from({ length: CALLERS }, async (_, caller) => {
          const slot = slots[caller % slots.length]!;
          while (performance.now() < until) {
            const call = WITH_REQUEST_ID
              ? consumeRequest(
                  encrypt(key, iv, {
                    client_id: clientId,
                    user_dbkey: slot.slotId,
                    amount: '1',
                    cuid,
                    request_id: `b${sequence++}`,
                  }),
                )
              : requests[caller % slots.length]!;
            const t0 = performance.now();
            const res = await connections[caller]!.send(call).catch((err: Error) => ({
              status: 0,
              body: err.message,
            }));
            // The answer's tx_hash, read from the text (a 66-character field after a fixed key).
            const at = res.body.indexOf('"tx_hash":"');
            if (res.status !== 200 || at < 0) {
              errors++;
              if (errors <= 3) process.stderr.write(`consumption answered ${res.status}: ${res.body}\n`);
              if (connections[caller]!.closed) connections[caller] = await connect();
              continue;
            }
            latencies.push(performance.now() - t0);
            transactions.add(res.body.slice(at + 11, at + 11 + 66));
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      const cpu = meter(latencies.length);
      latencies.sort((a, b) => a - b);
      const chainSide = dauth.node ? await blockFigures(dauth.node, transactions, latencies.length) : {};
      return {
        recorded: latencies.length,
        errors,
        seconds: Number(elapsed.toFixed(2)),
        consumptions_per_second: Number((latencies.length / elapsed).toFixed(1)),
        transactions: transactions.size,
        records_per_transaction: Number((latencies.length / Math.max(1, transactions.size)).toFixed(1)),
        p50_ms: percentile(latencies, 50),
        p90_ms: percentile(latencies, 90),
        p95_ms: percentile(latencies, 95),
        p99_ms: percentile(latencies, 99),
        // CPU per recorded consumption: what capacity depends on, whatever else the machine is doing.
        ...cpu,
        load_average: os.loadavg().map((l) => Number(l.toFixed(2))),
        ...chainSide,
      };
    };
    /**
     * `amount` consumptions over the CALLERS connections at once (each caller sends while fewer than `amount`
     * were begun), for `BENCH_CALLGRIND_CONSUMPTION`: answers how many were answered with a `tx_hash` and how
     * many distinct transactions carried them; any other answer fails the count.
     */
    const consumeCount = async (amount: number): Promise<{ recorded: number; transactions: number }> => {
      await openConnections();
      const transactions = new Set<string>();
      let begun = 0;
      await Promise.all(
        Array.from({ length: CALLERS }, async (_, caller) => {
          while (begun < amount) {
            begun++;
            const res = await connections[caller]!.send(requests[caller % slots.length]!);
            const at = res.body.indexOf('"tx_hash":"');
            if (res.status !== 200 || at < 0)
              throw new Error(`consumption answered ${res.status}: ${res.body}`);
            transactions.add(res.body.slice(at + 11, at + 11 + 66));
          }
        }),
      );
      return { recorded: amount, transactions: transactions.size };
    };
    const closeConnections = () => connections.forEach((c) => c.close());
    return { dauth, slots, cuid, runConsumption, consumeCount, closeConnections };
  } catch (err) {
    await dauth.cleanup();
    throw err;
  }
}

/**
 * With `--block-time`: the blocks the round's transactions landed in, and the gas they used per block and
 * per record answered (from their receipts): what one block carries, the chain side's ceiling.
 */
async function blockFigures(
  node: ExternalNode,
  transactions: Set<string>,
  recorded: number,
): Promise<Record<string, number>> {
  const receipts = (await Promise.all(
    [...transactions].map((hash) => node.rpc('eth_getTransactionReceipt', [hash])),
  )) as ({ blockNumber: string; gasUsed: string } | null)[];
  const found = receipts.filter((r) => r !== null);
  const blocks = new Set(found.map((r) => r.blockNumber));
  const gas = found.reduce((sum, r) => sum + Number(BigInt(r.gasUsed)), 0);
  return {
    blocks: blocks.size,
    transactions_per_block: Number((found.length / Math.max(1, blocks.size)).toFixed(2)),
    gas_used_per_block: Math.round(gas / Math.max(1, blocks.size)),
    records_per_block: Math.round(recorded / Math.max(1, blocks.size)),
    // Every record answered in the round came from these transactions (records of theirs answered just
    // outside the round make it a little high).
    gas_used_per_record: Math.round(gas / Math.max(1, recorded)),
  };
}

/**
 * BENCH_CALLGRIND=1 with BENCH_CALLGRIND_CONSUMPTION=<n>: instructions per recorded consumption in the dauth
 * process (its anvil runs outside valgrind), `n` consumptions a round after `n` of warm-up, BENCH_ROUNDS
 * rounds, the settled idle rate subtracted (`compareInstructionCounts`). A measure the VM's speed does not
 * move, for an A/B of the consumption path (docs/performance-content.md, round 19). Under valgrind dauth is
 * ≈ 50× slower, so its batches are whatever the callers' arrivals make them: the records per transaction
 * are reported beside the count, and only counts at the same batch size compare.
 */
async function countConsumptionInstructions(deployment: Awaited<ReturnType<typeof setUp>>): Promise<void> {
  let last = { recorded: 0, transactions: 0 };
  const counts = await compareInstructionCounts(
    {
      consumption: {
        pid: deployment.dauth.pid,
        run: async (amount) => {
          last = await deployment.consumeCount(amount);
          return last.recorded;
        },
        amount: CALLGRIND_CONSUMPTIONS,
        warmup: CALLGRIND_CONSUMPTIONS,
      },
    },
    Math.max(1, JOURNAL_ROUNDS),
  );
  console.log(
    JSON.stringify({
      bench: 'content consumption: instructions per recorded consumption (callgrind)',
      callers: CALLERS,
      journal: JOURNAL_MODES[0],
      ...instructionCountFields(counts),
      instructions_per_consumption: counts.perRequest.consumption,
      records_per_transaction_last_round: Number((last.recorded / Math.max(1, last.transactions)).toFixed(1)),
    }),
  );
}

/**
 * BENCH_CALLGRIND=1 (bench/instructionCount.ts): instructions per request of the bare route, `balance_adex`
 * and dauth's `/healthz` (`compareInstructionCounts`: warm-up, settling, BENCH_BALANCE_ROUNDS alternated
 * rounds, idle subtracted). Prints its own JSON line; no throughput (it means nothing under callgrind) and no
 * `BENCH_JSON` record.
 */
async function countBalanceInstructions(
  urls: { bare: string; balance: string; healthz: string },
  barePid: number,
  dauthPid: number,
): Promise<void> {
  const counts = await compareInstructionCounts(
    {
      bare: { url: urls.bare, pid: barePid },
      balance: { url: urls.balance, pid: dauthPid },
      healthz: { url: urls.healthz, pid: dauthPid },
    },
    BALANCE_ROUNDS,
  );
  const mean = counts.perRequest;
  console.log(
    JSON.stringify({
      bench: 'balance_adex: instructions per request (callgrind)',
      ...instructionCountFields(counts),
      instructions_per_request: { bare: mean.bare, balance_adex: mean.balance, healthz: mean.healthz },
      // bare ÷ balance_adex: the ratio a core would give each alone if instructions were its whole cost.
      bare_vs_balance_adex: Number((mean.bare / mean.balance).toFixed(2)),
      bare_vs_healthz: Number((mean.bare / mean.healthz).toFixed(2)),
    }),
  );
}

async function main(): Promise<void> {
  const bare = await startBareFastify();
  const callbacks = await startCallbackServer();
  const deployments: { journal: Journal; deployment: Awaited<ReturnType<typeof setUp>> }[] = [];
  try {
    // ----- 1. consumption end to end -----
    // With `--journal both` two dauths (chain journal on and off) are set up side by side, and the measured
    // rounds alternate between them, so load from elsewhere on the machine hits both alike; medians count.
    for (const journal of JOURNAL_MODES)
      deployments.push({ journal, deployment: await setUp(journal, callbacks) });
    if (callgrindEnabled && CALLGRIND_CONSUMPTIONS > 0) {
      await countConsumptionInstructions(deployments[0]!.deployment);
      return;
    }
    if (JOURNAL_ROUNDS > 0)
      for (const { deployment } of deployments) await deployment.runConsumption(WARMUP_SECONDS);
    const journalRounds = new Map<
      Journal,
      Awaited<ReturnType<Awaited<ReturnType<typeof setUp>>['runConsumption']>>[]
    >();
    for (let round = 0; round < JOURNAL_ROUNDS; round++) {
      for (const { journal, deployment } of deployments) {
        const result = await deployment.runConsumption(SECONDS);
        journalRounds.set(journal, [...(journalRounds.get(journal) ?? []), result]);
      }
    }
    const medianOf = (journal: Journal) =>
      [...(journalRounds.get(journal) ?? [])].sort(
        (a, b) => a.consumptions_per_second - b.consumptions_per_second,
      )[Math.floor(JOURNAL_ROUNDS / 2)];
    const { journal: measured, deployment } = deployments[0]!;
    const { dauth, slots, cuid } = deployment;
    // Undefined (null in the JSON) when BENCH_ROUNDS=0 measured balance_adex alone.
    const consumption = medianOf(measured);
    const consumptionRounds = Object.fromEntries(
      [...journalRounds].map(([journal, results]) => [
        journal,
        results.map((r) => r.consumptions_per_second),
      ]),
    );
    const journalCost =
      journalRounds.has('on') && journalRounds.has('off')
        ? Number(
            (1 - medianOf('on')!.consumptions_per_second / medianOf('off')!.consumptions_per_second).toFixed(
              3,
            ),
          )
        : null;

    // ----- 2. balance_adex against a bare Fastify route -----
    // Rounds alternate between the two (and dauth's own trivial /healthz, to separate the app's per-request
    // cost from the route's), so load from elsewhere on the machine hits them alike; the median counts.
    const slot = slots[0]!;
    let straced = 0;
    const cannon = (url: string, seconds: number, pid?: number) => {
      const meter = pid === undefined ? undefined : cpuMeter(pid);
      // BENCH_STRACE_DIR: syscall counts of the measured process in the first round (strace -c -f; it
      // slows the process, so that round's throughput means nothing, only syscalls per response).
      const strace =
        process.env.BENCH_STRACE_DIR && pid !== undefined && straced < 3
          ? spawn(
              'strace',
              [
                '-c',
                '-f',
                '-p',
                String(pid),
                '-o',
                path.join(
                  process.env.BENCH_STRACE_DIR,
                  `${straced++}-${new URL(url).pathname.split('/')[1]}.txt`,
                ),
              ],
              { stdio: 'ignore' },
            )
          : undefined;
      return autocannon({ url, connections: 100, duration: seconds, pipelining: 1 }).then(async (r) => {
        if (strace) {
          strace.kill('SIGINT');
          await new Promise((resolve) => strace.once('exit', resolve));
          process.stderr.write(`strace ${url}: ${r.requests.total} responses\n`);
        }
        if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        const cpu = meter?.(r.requests.total);
        return {
          rps: Math.round(r.requests.average),
          p50: r.latency.p50,
          p99: r.latency.p99,
          server_cpu_us:
            cpu?.server_cpu_ms_per_op === undefined ? undefined : Math.round(cpu.server_cpu_ms_per_op * 1000),
        };
      });
    };
    const balanceUrl = `${dauth.url}/v1/development-api/balance_adex/${slot.slotAddress}?cuid=${cuid}`;
    const bareUrl = `${bare.url}/bare/${slot.slotAddress}`;
    const healthUrl = `${dauth.url}/healthz`;
    if (callgrindEnabled) {
      await countBalanceInstructions(
        { bare: bareUrl, balance: balanceUrl, healthz: healthUrl },
        bare.pid,
        dauth.pid,
      );
      return;
    }
    // Warm both (JIT, connection setup) before measuring.
    if (BALANCE_ROUNDS > 0) {
      await cannon(bareUrl, WARMUP_SECONDS);
      await cannon(balanceUrl, WARMUP_SECONDS);
    }
    const rounds: {
      bare: number;
      balance: number;
      healthz: number;
      ratio: number;
      /** Server CPU per request (µs, /proc): less disturbed by neighbours than requests per second. */
      cpu_us: { bare?: number; balance?: number; healthz?: number };
      cpu_ratio?: number;
    }[] = [];
    const roundSeconds = Math.max(3, Math.round(SECONDS / 2));
    let balanceLatency = { p50: 0, p99: 0 };
    for (let round = 0; round < BALANCE_ROUNDS; round++) {
      const bareRound = await cannon(bareUrl, roundSeconds, bare.pid);
      const balanceRound = await cannon(balanceUrl, roundSeconds, dauth.pid);
      const healthRound = await cannon(healthUrl, roundSeconds, dauth.pid);
      balanceLatency = { p50: balanceRound.p50, p99: balanceRound.p99 };
      rounds.push({
        bare: bareRound.rps,
        balance: balanceRound.rps,
        healthz: healthRound.rps,
        ratio: Number((balanceRound.rps / bareRound.rps).toFixed(2)),
        cpu_us: {
          bare: bareRound.server_cpu_us,
          balance: balanceRound.server_cpu_us,
          healthz: healthRound.server_cpu_us,
        },
        // bare CPU ÷ balance_adex CPU per request: the ratio a core would give each alone.
        ...(bareRound.server_cpu_us && balanceRound.server_cpu_us
          ? { cpu_ratio: Number((bareRound.server_cpu_us / balanceRound.server_cpu_us).toFixed(2)) }
          : {}),
      });
    }
    const median = <T>(values: T[], key: (v: T) => number) =>
      [...values].sort((a, b) => key(a) - key(b))[Math.floor(values.length / 2)];
    const medianRound = median(rounds, (r) => r.ratio);
    const ratio = medianRound?.ratio ?? null;
    const balanceResult = medianRound && { requests_per_second: medianRound.balance, ...balanceLatency };
    const bareResult = medianRound && { requests_per_second: medianRound.bare };

    const summary = {
      bench:
        BLOCK_TIME === undefined
          ? 'content tokens (embedded default: SQLite + embedded anvil)'
          : `content tokens (SQLite, external anvil with ${BLOCK_TIME}-second blocks)`,
      cpus: os.cpus().length,
      callers: CALLERS,
      // The service's settings this run changed from their defaults (docs/performance-content.md).
      content_batches_in_flight: process.env.CONTENT_BATCHES_IN_FLIGHT ?? 'default',
      bundles_in_flight: process.env.BUNDLES_IN_FLIGHT ?? 'default',
      slots: SLOTS,
      request_id: WITH_REQUEST_ID,
      journal: measured,
      consumption: consumption ?? null,
      consumption_rounds: consumptionRounds,
      chain_journal_cost: journalCost,
      ...(journalCost !== null
        ? {
            consumption_median_off: medianOf('off'),
          }
        : {}),
      balance_adex: balanceResult,
      bare_fastify: bareResult,
      balance_adex_vs_bare: ratio,
      balance_rounds: rounds,
      targets: { consumptions_per_second: 5000, records_per_transaction: 50, balance_adex_vs_bare: 0.8 },
      meets_targets:
        consumption !== undefined &&
        consumption.consumptions_per_second >= 5000 &&
        consumption.records_per_transaction >= 50 &&
        consumption.errors === 0 &&
        ratio !== null &&
        ratio >= 0.8,
    };
    console.log(JSON.stringify(summary));
    writeBenchSummary(summary);
  } finally {
    await callbacks.close();
    await bare.cleanup();
    for (const { deployment } of deployments) {
      deployment.closeConnections();
      await deployment.dauth.cleanup();
    }
    agent.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
