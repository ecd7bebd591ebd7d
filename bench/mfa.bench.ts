/**
 * The second step of a sign-in (docs/mfa.md, issue 37) beside a password sign-in.
 *
 * A real dauth (child process, embedded chain, SQLite, production scrypt cost unless SCRYPT_LOG_N is
 * set) with `--users` accounts without a second factor and `--users` with TOTP (enrolled under the
 * console's binding, confirmed with a code of an RFC 6238 generator written out here). Then, one phase
 * after the other, `--concurrency` closed-loop clients make a fixed number of calls:
 * - password: `POST /v1/dev-user/login_devuser` of an account without TOTP (the token at once);
 * - password, mfa_required: the same for an account with TOTP (answers an mfa_token);
 * - login/mfa TOTP: `POST /v1/dev-user/login/mfa` with a current code (each step's code is accepted
 *   once per account, so one call per account a sub-round, `--totp-steps` sub-rounds in as many 30-s
 *   steps, each after its own first steps);
 * - login/mfa recovery: the same with each of the account's 10 recovery codes.
 * The second-step phases use mfa_tokens made by the mfa_required phases (one before the TOTP phases, one
 * before the recovery phase: a token lives 300 s), so they measure the step alone. Each waits for the server
 * to settle after those scrypt runs first (`settle`).
 * Before them, a warm-up of the same calls (2 recovery codes per account, and one TOTP sub-round) runs
 * unmeasured: the target is the step's cost in a running server, not the JIT compiling its code the first
 * time. A TOTP sub-round waits for a step no account has used yet (a step's code is accepted once, and
 * never after a later one), so `--totp-steps` sub-rounds take at least as many half-minutes.
 * Reported: calls per second, latency p50/p99, and the server's CPU per call (from /proc, all its threads, in
 * the scheduler's nanoseconds rather than 10 ms ticks: 24 calls at 1.25 ms were 3 ticks),
 * gross and net of the idle server's own background work (chain polling, timers: its CPU per second
 * measured while nothing calls it, times the phase's duration).
 *
 *   npm run bench:mfa
 *   npm run bench:mfa -- --concurrency 8 --users 32 --rounds 10
 *   SCRYPT_LOG_N=14 npm run bench:mfa   # the second step is the same; the first steps take seconds
 *
 * TRUST_PROXY=true and an X-Forwarded-For per account keep per-address limits per client.
 */
import { createHmac } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { processRunSeconds, startDauthProcess } from './dauthProcess.js';
import { machineInfo, writeBenchSummary } from './summary.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '8' },
    // 64 accounts give 64–128 TOTP and 512 recovery-code calls a phase: with 24, a phase of 24–48 TOTP calls
    // lasted ~50 ms of server CPU, and whether a collection fell into it decided the figure (1.1 to 1.7 ms
    // on one machine; docs/mfa.md, round 4). Each account's 13 first steps are scrypt sign-ins: ~6 min.
    users: { type: 'string', default: '64' },
    // Password sign-ins per account in the password phases.
    rounds: { type: 'string', default: '2' },
    // Measured TOTP sub-rounds, one call per account each (64–128 calls in one phase until 30 November:
    // 0.1–0.2 s of server CPU, where one collection moved the figure by a third; docs/mfa.md, round 7).
    'totp-steps': { type: 'string', default: process.env.BENCH_TOTP_STEPS ?? '4' },
  },
});
const concurrency = Number(values.concurrency);
const userCount = Number(values.users);
const rounds = Number(values.rounds);
const totpSteps = Math.max(1, Number(values['totp-steps']));
const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const PASSWORD = 'correct horse battery staple';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** RFC 6238 (HMAC-SHA1, 6 digits, 30 s steps) from the base32 secret the enrolment answers. */
function totpCode(base32: string, step: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of base32.replace(/=+$/, '').toUpperCase()) {
    bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  }
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', Buffer.from(bytes)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}
const stepNow = () => Math.floor(Date.now() / 30_000);

function startDauth() {
  return startDauthProcess('mfa', {
    TRUST_PROXY: 'true',
    RATE_LIMITS:
      'login=100000/1m,login_address=100000/1m,register=100000/1m,login_mfa=100000/1m,mfa_manage=100000/1m',
  });
}

async function post<T = Record<string, unknown>>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

interface Account {
  email: string;
  forwardedFor: string;
  /** base32; undefined for an account without TOTP. */
  secret?: string;
  confirmedStep?: number;
  recoveryCodes?: string[];
}

async function setUp(base: string, withTotp: boolean, offset: number): Promise<Account[]> {
  const accounts: Account[] = [];
  for (let i = 0; i < userCount; i++) {
    const email = `bench-mfa-${withTotp ? 'on' : 'off'}-${i}-${Date.now()}@example.com`;
    const n = offset + i;
    const forwardedFor = `10.2.${Math.floor(n / 250)}.${(n % 250) + 1}`;
    const h = { 'x-forwarded-for': forwardedFor };
    const registered = await post(`${base}/v1/dev-user/register`, { email, password: PASSWORD }, h);
    if (registered.status !== 201) throw new Error(`register: ${JSON.stringify(registered.body)}`);
    if (!withTotp) {
      accounts.push({ email, forwardedFor });
      continue;
    }
    // Enrolment is first-party (decisions §9): the console's binding.
    const login = await post<{ token: string }>(
      `${base}/v1/dev-user/login_devuser`,
      { email, password: PASSWORD, client_id: 'dauth:console' },
      h,
    );
    const auth = { ...h, authorization: `Bearer ${login.body.token}` };
    const started = await post<{ secret: string }>(`${base}/v1/dev-user/mfa/totp`, {}, auth);
    const confirmedStep = stepNow();
    const confirmed = await post<{ recovery_codes: string[] }>(
      `${base}/v1/dev-user/mfa/totp/confirm`,
      { code: totpCode(started.body.secret, confirmedStep) },
      auth,
    );
    if (confirmed.status !== 200) throw new Error(`confirm: ${JSON.stringify(confirmed.body)}`);
    accounts.push({
      email,
      forwardedFor,
      secret: started.body.secret,
      confirmedStep,
      recoveryCodes: confirmed.body.recovery_codes,
    });
  }
  return accounts;
}

/** The idle server's own CPU per second (chain polling, timers), sampled while nothing calls it. */
async function backgroundCpuPerSecond(pid: number, seconds = 3): Promise<number> {
  const cpuStart = processRunSeconds(pid);
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return (processRunSeconds(pid) - cpuStart) / ((performance.now() - start) / 1000);
}

/**
 * Waits until the server is back to its idle background (its CPU over 250 ms within twice the idle rate,
 * or 10 s at most) and returns the seconds waited. A phase right after a run of production scrypts would
 * otherwise pay that run's aftermath (its 128-MB buffers freed, a major collection): the recovery phase
 * follows the second token run directly, and in the 20:37 run of 29 November its p99 was 92 ms against the
 * TOTP phase's 22.
 */
async function settle(pid: number, background: number): Promise<number> {
  const start = performance.now();
  for (;;) {
    const cpu = processRunSeconds(pid);
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 250));
    const rate = (processRunSeconds(pid) - cpu) / ((performance.now() - t0) / 1000);
    if (rate <= 2 * background || performance.now() - start > 10_000) {
      return round((performance.now() - start) / 1000, 2);
    }
  }
}

interface Measured {
  latencies: number[];
  failed: number;
  /** Seconds of wall time and of the server's CPU. */
  elapsed: number;
  cpu: number;
}

/**
 * `rounds` one after the other, the calls of each spread over `concurrency` closed-loop workers (each call
 * true when it got what it should); measured together.
 */
async function measure(pid: number, ...rounds: (() => Promise<boolean>)[][]): Promise<Measured> {
  let failed = 0;
  const latencies: number[] = [];
  const cpuStart = processRunSeconds(pid);
  const start = performance.now();
  for (const calls of rounds) {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < calls.length) {
          const call = calls[next++]!;
          const t0 = performance.now();
          const ok = await call();
          latencies.push(performance.now() - t0);
          if (!ok) failed++;
        }
      }),
    );
  }
  return {
    latencies,
    failed,
    elapsed: (performance.now() - start) / 1000,
    cpu: processRunSeconds(pid) - cpuStart,
  };
}

/** One phase's figures from its measured parts (the parts' calls, wall time and CPU added up). */
function phase(name: string, background: number, parts: Measured[]) {
  const latencies = parts.flatMap((p) => p.latencies).sort((a, b) => a - b);
  const failed = parts.reduce((sum, p) => sum + p.failed, 0);
  const elapsed = parts.reduce((sum, p) => sum + p.elapsed, 0);
  const cpu = parts.reduce((sum, p) => sum + p.cpu, 0);
  const count = Math.max(latencies.length, 1);
  return {
    name,
    calls: latencies.length,
    per_second: round(latencies.length / elapsed, 1),
    p50_ms: round(percentile(latencies, 50), 1),
    p99_ms: round(percentile(latencies, 99), 1),
    server_cpu_ms_per_call: round((cpu * 1000) / count),
    server_cpu_ms_per_call_net: round(((cpu - background * elapsed) * 1000) / count),
    failed,
  };
}

async function run(name: string, pid: number, background: number, ...rounds: (() => Promise<boolean>)[][]) {
  return phase(name, background, [await measure(pid, ...rounds)]);
}

const dauth = await startDauth();
try {
  const base = dauth.url;
  const plain = await setUp(base, false, 0);
  const totp = await setUp(base, true, userCount);
  const login = (account: Account) =>
    post<{ token?: string; mfa_token?: string }>(
      `${base}/v1/dev-user/login_devuser`,
      { email: account.email, password: PASSWORD },
      { 'x-forwarded-for': account.forwardedFor },
    );

  const background = await backgroundCpuPerSecond(dauth.pid);
  const password = await run(
    'password (no TOTP)',
    dauth.pid,
    background,
    Array.from({ length: userCount * rounds }, (_, i) => async () => {
      const res = await login(plain[i % userCount]!);
      return res.status === 200 && typeof res.body.token === 'string';
    }),
  );

  // The first step of the TOTP accounts: its mfa_tokens feed the second-step phases. An mfa_token lives
  // MFA_TOKEN_TTL_SECONDS (300 s) and each first step is a production scrypt, so the tokens are made right
  // before the calls that use them, a run per sub-round, the leftovers of earlier runs dropped: made in one
  // run of 13 per account, the oldest were more than 300 s old by the recovery phase on a slow VM (0.8 s a
  // scrypt: 184 of 512 recovery calls refused in the 20:37 run of 29 November).
  const tokens = new Map<Account, string[]>(totp.map((account) => [account, []]));
  const dropTokens = () => totp.forEach((account) => tokens.set(account, []));
  const mintCalls = (perAccount: number) =>
    Array.from({ length: userCount * perAccount }, (_, i) => async () => {
      const account = totp[i % userCount]!;
      const res = await login(account);
      if (res.status !== 200 || typeof res.body.mfa_token !== 'string') return false;
      tokens.get(account)!.push(res.body.mfa_token);
      return true;
    });
  const mint = (name: string, perAccount: number) => run(name, dauth.pid, background, mintCalls(perAccount));
  // The warm-up's TOTP sub-round and recovery codes; each measured TOTP sub-round mints its own after.
  const warmUpCodes = 2;
  const firstStep = await mint('password, mfa_required', Math.max(rounds, 1 + warmUpCodes));

  const secondStep = (account: Account, code: string) => async () => {
    const res = await post<{ token?: string }>(
      `${base}/v1/dev-user/login/mfa`,
      { mfa_token: tokens.get(account)!.shift(), code },
      { 'x-forwarded-for': account.forwardedFor },
    );
    return res.status === 200 && typeof res.body.token === 'string';
  };
  // A step's code is accepted once per account, only after every step used before, and within now ± 1:
  // each sub-round takes the earliest step after the last one used that is still in the window, waiting
  // for the clock when the window is used up, and never within 5 s of a step's end (so that the window
  // does not move while the sub-round runs).
  let lastStep = Math.max(...totp.map((account) => account.confirmedStep!));
  const totpRound = async () => {
    for (;;) {
      while (Date.now() % 30_000 > 25_000) await new Promise((resolve) => setTimeout(resolve, 500));
      const step = Math.max(lastStep + 1, stepNow() - 1);
      if (step <= stepNow() + 1) {
        lastStep = step;
        return totp.map((account) => secondStep(account, totpCode(account.secret!, step)));
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  const settledBeforeTotp = await settle(dauth.pid, background);
  // Unmeasured: one TOTP sub-round and 2 recovery codes per account.
  const warmUp = await run(
    'warm-up (not a figure)',
    dauth.pid,
    background,
    await totpRound(),
    totp.flatMap((account) =>
      account.recoveryCodes!.slice(0, warmUpCodes).map((code) => secondStep(account, code)),
    ),
  );
  const totpParts: Measured[] = [];
  for (let i = 0; i < totpSteps; i++) {
    dropTokens();
    await measure(dauth.pid, mintCalls(1));
    await settle(dauth.pid, background);
    totpParts.push(await measure(dauth.pid, await totpRound()));
  }
  const withTotp = phase('login/mfa, TOTP code', background, totpParts);
  // The measured recovery codes' tokens, made now (see above).
  dropTokens();
  const recoveryFirstStep = await mint(
    'password, mfa_required (recovery tokens)',
    totp[0]!.recoveryCodes!.length - warmUpCodes,
  );
  const settled = await settle(dauth.pid, background);
  const withRecovery = await run(
    'login/mfa, recovery code',
    dauth.pid,
    background,
    totp.flatMap((account) =>
      account.recoveryCodes!.slice(warmUpCodes).map((code) => secondStep(account, code)),
    ),
  );

  const results = [password, firstStep, warmUp, withTotp, recoveryFirstStep, withRecovery];
  console.log(
    `\nSecond-factor sign-ins: ${concurrency} clients, ${userCount} accounts each kind, scrypt log N ${
      process.env.SCRYPT_LOG_N ?? 'default (17)'
    }, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; the idle server's background: ${round(background * 1000, 1)} ms of CPU per second\n`,
  );
  console.table(
    results.map((r) => ({
      phase: r.name,
      calls: r.calls,
      'calls/s': r.per_second,
      'p50 ms': r.p50_ms,
      'p99 ms': r.p99_ms,
      'server CPU ms/call': r.server_cpu_ms_per_call,
      'net of idle': r.server_cpu_ms_per_call_net,
      failed: r.failed,
    })),
  );
  const summary = {
    settings: {
      concurrency,
      users: userCount,
      rounds,
      totp_steps: totpSteps,
      scrypt_log_n: process.env.SCRYPT_LOG_N ?? 'default (17)',
    },
    background_cpu_ms_per_second: round(background * 1000, 1),
    // Seconds waited for the server to settle before the measured TOTP and recovery phases (`settle`).
    settled_seconds: { totp: settledBeforeTotp, recovery: settled },
    results,
  };
  console.log(JSON.stringify({ machine: machineInfo(), ...summary }, null, 2));
  writeBenchSummary(summary);
} finally {
  await dauth.stop();
}
