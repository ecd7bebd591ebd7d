/**
 * A launch-day flood of guest sign-ups against the bot challenge (issue 39, docs/security.md "Bot
 * challenge", figures in docs/performance.md).
 *
 * A real dauth (child process, embedded chain, SQLite) with `BOT_CHALLENGE=guest` and one app. For
 * `--seconds` (or until `--guests` guests exist), `--concurrency` attacker workers create guests from
 * `--addresses` loopback addresses (127.1.x.y, 250 to a /24, as X-Forwarded-For with TRUST_PROXY), each
 * guest after fetching and solving a challenge (SHA-256 brute force, as the SDKs do); beside them an
 * honest player from a network of its own creates a guest every `--honest-every` ms. Reported: guests the
 * attacker got and at what rate, the difficulty it met, the hashes it spent, the honest players refused
 * or slowed, the server's CPU per request (from /proc), and the CPU per challenge verification measured
 * in-process (`BotChallengeService.verify`).
 *
 *   npm run bench:flood
 *   npm run bench:flood -- --quick
 *   npm run bench:flood -- --seconds 300 --concurrency 32
 *
 * The sponsored first operation of each guest under a per-app sponsorship policy (the rest of issue 39's
 * probe) is not measured here: that policy is another slice of the issue.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BotChallengeService } from '../packages/server/src/services/defense/botChallenge.js';
import { machineInfo, writeBenchSummary } from './summary.js';

const { values } = parseArgs({
  options: {
    guests: { type: 'string', default: '10000' },
    addresses: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '120' },
    'honest-every': { type: 'string', default: '1000' },
    quick: { type: 'boolean', default: false },
  },
});
const quick = values.quick;
const maxGuests = quick ? 300 : Number(values.guests);
const addressCount = quick ? 100 : Number(values.addresses);
const concurrency = Number(values.concurrency);
const seconds = quick ? 20 : Number(values.seconds);
const honestEvery = Number(values['honest-every']);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const round = (n: number, digits = 2) => Number(n.toFixed(digits));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function processCpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function startDauth(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-bench-flood-'));
  const child = spawn(
    process.execPath,
    ['--conditions=development', '--import', 'tsx', path.join(repoRoot, 'packages/server/src/main.ts')],
    {
      cwd: repoRoot,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        TRUST_PROXY: 'true',
        BOT_CHALLENGE: 'guest',
        SCRYPT_LOG_N: '14',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dauth exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('dauth did not become ready');
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => {
          fs.rmSync(dataDir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

async function send(
  url: string,
  method: 'GET' | 'POST',
  body: unknown,
  from: string,
  bearer?: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: {
      'x-forwarded-for': from,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

interface Challenge {
  algorithm: string;
  challenge: string;
  salt: string;
  signature: string;
  maxnumber: number;
}

/** The SDKs' solver: SHA-256(salt + n) for n = 0.. until it matches; the solution and the hashes spent. */
function solve(c: Challenge): { altcha: string; hashes: number } {
  for (let n = 0; n <= c.maxnumber; n++) {
    if (createHash('sha256').update(`${c.salt}${n}`).digest('hex') === c.challenge) {
      const { algorithm, challenge, salt, signature } = c;
      const altcha = Buffer.from(
        JSON.stringify({ algorithm, challenge, number: n, salt, signature }),
      ).toString('base64');
      return { altcha, hashes: n + 1 };
    }
  }
  throw new Error('unsolvable challenge');
}

/** The server's CPU per verification, in-process: `--quick` 500, else 5,000 solved challenges. */
async function verificationCpu(): Promise<{ microseconds: number }> {
  const spent = new Set<string>();
  const marks = { claimOnce: async (key: string) => !spent.has(key) && Boolean(spent.add(key)) };
  const service = new BotChallengeService(randomBytes(32), ['guest'], marks);
  const count = quick ? 500 : 5_000;
  const solutions: string[] = [];
  for (let i = 0; i < count; i++) solutions.push(solve(await service.issue(1_000)).altcha);
  const before = process.cpuUsage();
  for (const s of solutions) if (!(await service.verify(s))) throw new Error('a solution was refused');
  const used = process.cpuUsage(before);
  return { microseconds: round((used.user + used.system) / count, 1) };
}

const attackers = Array.from(
  { length: addressCount },
  (_, i) => `127.1.${Math.floor(i / 250)}.${(i % 250) + 1}`,
);

const cpu = await verificationCpu();
console.log(`CPU per challenge verification: ${cpu.microseconds} µs`);

const dauth = await startDauth();
try {
  const owner = {
    email: `flood-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench owner passphrase',
  };
  const registered = await send(`${dauth.url}/v1/dev-user/register`, 'POST', owner, '192.0.2.1');
  if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
  const login = await send(`${dauth.url}/v1/dev-user/login_devuser`, 'POST', owner, '192.0.2.1');
  const app = await send(
    `${dauth.url}/v1/dev-user/clients`,
    'POST',
    { name: 'Flooded game', redirect_uris: ['https://game.example/cb'] },
    '192.0.2.1',
    login.body.token as string,
  );
  const clientId = app.body.client_id as string;
  if (!clientId) throw new Error(`client: ${app.status}`);

  /** One guest: a challenge, its solution, the sign-up. */
  async function oneGuest(from: string) {
    const started = performance.now();
    const c = await send(
      `${dauth.url}/v1/challenge?client_id=${encodeURIComponent(clientId)}`,
      'GET',
      undefined,
      from,
    );
    if (c.status !== 200) return { ok: false, status: c.status, hashes: 0, maxnumber: 0, ms: 0 };
    const challenge = c.body as unknown as Challenge;
    const { altcha, hashes } = solve(challenge);
    const guest = await send(`${dauth.url}/v1/dev-user/guest`, 'POST', { client_id: clientId, altcha }, from);
    return {
      ok: guest.status === 201,
      status: guest.status,
      hashes,
      maxnumber: challenge.maxnumber,
      ms: performance.now() - started,
      altcha,
    };
  }

  const deadline = Date.now() + seconds * 1000;
  const attack = { created: 0, refused: 0, hashes: 0, maxnumbers: [] as number[], replaysRefused: 0 };
  const honest = { created: 0, refused: 0, ms: [] as number[] };
  const cpuBefore = processCpuSeconds(dauth.pid);
  let requests = 0;
  let next = 0;
  const startedAt = performance.now();
  const workers = Array.from({ length: concurrency }, async () => {
    while (Date.now() < deadline && attack.created < maxGuests) {
      const from = attackers[next++ % attackers.length]!;
      const r = await oneGuest(from);
      requests += 2;
      attack.hashes += r.hashes;
      attack.maxnumbers.push(r.maxnumber);
      if (r.ok) attack.created++;
      else attack.refused++;
      // Every 50th solution sent again: a replay must be refused.
      if (r.ok && attack.created % 50 === 0 && r.altcha) {
        const replay = await send(
          `${dauth.url}/v1/dev-user/guest`,
          'POST',
          { client_id: clientId, altcha: r.altcha },
          from,
        );
        requests++;
        if (replay.status === 400) attack.replaysRefused++;
      }
    }
  });
  const player = (async () => {
    let i = 0;
    while (Date.now() < deadline && attack.created < maxGuests) {
      const r = await oneGuest(`198.51.${100 + (i % 50)}.${(i++ % 200) + 1}`);
      requests += 2;
      if (r.ok) {
        honest.created++;
        honest.ms.push(r.ms);
      } else honest.refused++;
      await new Promise((resolve) => setTimeout(resolve, honestEvery));
    }
  })();
  await Promise.all([...workers, player]);
  const elapsed = (performance.now() - startedAt) / 1000;
  const serverCpu = processCpuSeconds(dauth.pid) - cpuBefore;
  const sorted = [...attack.maxnumbers].sort((a, b) => a - b);
  const honestSorted = [...honest.ms].sort((a, b) => a - b);
  const summary = {
    benchmark: 'flood',
    seconds: round(elapsed, 1),
    attacker: {
      addresses: addressCount,
      networks: new Set(attackers.map((a) => a.split('.').slice(0, 3).join('.'))).size,
      workers: concurrency,
      guests_created: attack.created,
      guests_per_minute: round((attack.created / elapsed) * 60, 1),
      refused: attack.refused,
      replays_refused: attack.replaysRefused,
      hashes_spent: attack.hashes,
      maxnumber_first: attack.maxnumbers[0] ?? 0,
      maxnumber_median: sorted[Math.floor(sorted.length / 2)] ?? 0,
      maxnumber_last: attack.maxnumbers.at(-1) ?? 0,
    },
    honest: {
      created: honest.created,
      refused: honest.refused,
      p50_ms: round(honestSorted[Math.floor(honestSorted.length / 2)] ?? 0, 0),
      max_ms: round(honestSorted.at(-1) ?? 0, 0),
    },
    server: {
      requests,
      cpu_seconds: round(serverCpu, 2),
      cpu_ms_per_request: round((serverCpu * 1000) / Math.max(1, requests), 3),
      cpu_us_per_verification: cpu.microseconds,
    },
    machine: machineInfo(),
  };
  console.log(JSON.stringify(summary, null, 2));
  writeBenchSummary(summary);
} finally {
  await dauth.stop();
}
