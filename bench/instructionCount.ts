/**
 * Instructions per request, counted by valgrind's callgrind: a measure of a server's own per-request work
 * that does not move with the machine's speed or load. On a shared 2-core VM the CPU time per request of the
 * same build moves by half between minutes (docs/performance-content.md, rounds 11 and 12), far more than
 * a cut of a few µs; callgrind counts the user-space instructions a process executes (every thread: the
 * event loop, libuv's pool, V8's compiler and GC threads), the same count for the same work whatever
 * else runs. It does not count the kernel (the socket's send and receive), nor cache misses or branch
 * mispredictions, so it ranks what a change does to the JavaScript and native code of a request, not the
 * whole CPU time.
 *
 * BENCH_CALLGRIND=1 makes `measuredCommand` start the measured processes under callgrind with its
 * instrumentation off (startup, setup and warm-up run about 5× slower instead of 50×); `countInstructions`
 * switches it on around a fixed number of requests and reads the count from the dump callgrind writes.
 * Needs valgrind (Debian's `valgrind`); BENCH_CALLGRIND_DEBUG=1 prints what callgrind_control answers. To name
 * the JIT-compiled functions in a dump, add `--perf-basic-prof` to the process's flags (BENCH_NODE_ARGS) and
 * map the dump's addresses through `/tmp/perf-<pid>.map` (docs/performance-content.md, round 13).
 *
 *   BENCH_CALLGRIND=1 BENCH_ROUNDS=0 BENCH_SLOTS=1 npm run bench:content -- --journal on
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const callgrindEnabled = process.env.BENCH_CALLGRIND === '1';

/**
 * BENCH_CALLGRIND_CACHE=1 adds callgrind's cache simulation (first-level instruction and data caches and the
 * last level, sized from the host's CPUID): misses per request beside the instructions. A request's cost per
 * instruction is not the same in two processes — dauth's reads 0.76 of the bare route by instructions and
 * 0.59–0.65 by rate on one VM — and the simulated misses say whether the memory a request touches is the
 * difference. The simulation makes the measured process about twice as slow again.
 */
export const cacheSimulation = callgrindEnabled && process.env.BENCH_CALLGRIND_CACHE === '1';

const dumpDir = callgrindEnabled ? fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-callgrind-')) : '';

/**
 * The command that starts `node args…`: under callgrind (instrumentation off) with BENCH_CALLGRIND=1,
 * else node itself. `label` names the process's dumps.
 */
export function measuredCommand(label: string, nodeArgs: string[]): { command: string; args: string[] } {
  if (!callgrindEnabled) return { command: process.execPath, args: nodeArgs };
  return {
    command: 'valgrind',
    args: [
      '--tool=callgrind',
      '--instr-atstart=no',
      ...(cacheSimulation ? ['--cache-sim=yes'] : []),
      // V8 writes the machine code it runs (JIT): valgrind must notice code rewritten in place.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${path.join(dumpDir, `${label}.%p`)}`,
      '--log-file=' + path.join(dumpDir, `${label}.%p.log`),
      process.execPath,
      ...nodeArgs,
    ],
  };
}

/**
 * vgdb (which callgrind_control drives) finds a process's command pipes by names that embed the user and
 * host names valgrind read from that process's environment (LOGNAME or USER, HOST or HOSTNAME): dauth's
 * HOST (its listen address) is one of them, so callgrind_control runs with the measured process's values.
 */
const NAMING_VARIABLES = ['LOGNAME', 'USER', 'HOST', 'HOSTNAME'];

function namingEnv(pid: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of NAMING_VARIABLES) delete env[name];
  for (const entry of fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0')) {
    const name = entry.slice(0, entry.indexOf('='));
    if (NAMING_VARIABLES.includes(name)) env[name] = entry.slice(name.length + 1);
  }
  return env;
}

async function control(pid: number, ...args: string[]): Promise<void> {
  const { stdout, stderr } = await run('callgrind_control', [...args, String(pid)], { env: namingEnv(pid) });
  if (process.env.BENCH_CALLGRIND_DEBUG)
    process.stderr.write(`callgrind_control ${args.join(' ')} ${pid}: ${stdout}${stderr}\n`);
}

/** Callgrind's counters: `Ir` (instructions), and with the cache simulation its read/write and miss counts. */
type EventTotals = Record<string, number>;

/** The `summary:` of the newest dump of `pid`, by the dump's `events:` names. */
function newestDumpTotals(pid: number): EventTotals {
  const dumps = fs
    .readdirSync(dumpDir)
    .filter((name) => new RegExp(`\\.${pid}\\.\\d+$`).test(name))
    .map((name) => ({ name, part: Number(name.slice(name.lastIndexOf('.') + 1)) }))
    .sort((a, b) => b.part - a.part);
  if (dumps.length === 0) throw new Error(`callgrind wrote no dump for pid ${pid} in ${dumpDir}`);
  const text = fs.readFileSync(path.join(dumpDir, dumps[0]!.name), 'utf8');
  const events = /^events: (.+)$/m.exec(text)?.[1]?.trim().split(/\s+/);
  const summary = /^summary: ([\d ]+)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (!events || !summary) throw new Error(`no events or summary line in ${dumps[0]!.name}`);
  // Callgrind leaves trailing zero counters out of a line.
  return Object.fromEntries(events.map((event, i) => [event, summary[i] ?? 0]));
}

/**
 * The instructions `pid` executes while `during` runs (instrumentation on and counters zeroed before it,
 * dumped and off after it), with the wall-clock seconds it took.
 */
async function counted<T>(
  pid: number,
  during: () => Promise<T>,
): Promise<{ totals: EventTotals; seconds: number; value: T }> {
  await control(pid, '--instr=on');
  await control(pid, '--zero');
  const started = performance.now();
  const value = await during();
  const seconds = (performance.now() - started) / 1000;
  await control(pid, '--dump');
  await control(pid, '--instr=off');
  return { totals: newestDumpTotals(pid), seconds, value };
}

/** Simulated cache misses (BENCH_CALLGRIND_CACHE=1): first-level instruction, first-level data, last level. */
export interface CacheMisses {
  I1: number;
  D1: number;
  LL: number;
}

function cacheMissesOf(events: EventTotals): CacheMisses {
  const of = (...names: string[]) => names.reduce((sum, name) => sum + (events[name] ?? 0), 0);
  return { I1: of('I1mr'), D1: of('D1mr', 'D1mw'), LL: of('ILmr', 'DLmr', 'DLmw') };
}

/**
 * Instructions `pid` executes while `load` runs, divided by the requests `load` says it made, less what the
 * process does with no requests at all over the same wall-clock time (`idlePerSecond`, from `countSettledIdle`):
 * a timer-driven background (dauth's chain head poll, its resyncs) runs at its own pace under valgrind while
 * each request runs ≈ 50× slower, so uncorrected it would be charged to the requests. With the cache
 * simulation, the misses per request likewise (idle subtracted). `pid` must have been started by
 * `measuredCommand` with BENCH_CALLGRIND=1.
 */
export async function countInstructions(
  pid: number,
  load: () => Promise<number>,
  idlePerSecond: EventTotals = {},
): Promise<{ perRequest: number; rawPerRequest: number; missesPerRequest?: CacheMisses }> {
  const { totals, seconds, value } = await counted(pid, load);
  const requests = Math.max(1, value);
  const net = Object.fromEntries(
    Object.entries(totals).map(([event, total]) => [
      event,
      (total - (idlePerSecond[event] ?? 0) * seconds) / requests,
    ]),
  );
  const misses = cacheMissesOf(net);
  return {
    perRequest: Math.round(net.Ir ?? 0),
    rawPerRequest: Math.round((totals.Ir ?? 0) / requests),
    ...(cacheSimulation
      ? {
          missesPerRequest: {
            I1: Math.round(misses.I1),
            D1: Math.round(misses.D1),
            LL: Math.round(misses.LL),
          },
        }
      : {}),
  };
}

/**
 * Counts windows (`countWindow`: instructions per request of one window) until two in a row agree within
 * `tolerance`, at most `attempts`; answers every window's count, the last two being the settled ones. V8 goes on
 * compiling a route's functions well after a fixed warm-up on a slow VM, and a window then reads 10–35 % high.
 */
export async function countUntilSettled(
  countWindow: () => Promise<number>,
  tolerance = 0.02,
  attempts = 6,
): Promise<number[]> {
  const windows = [await countWindow()];
  while (windows.length < attempts) {
    const count = await countWindow();
    const previous = windows[windows.length - 1]!;
    windows.push(count);
    if (Math.abs(count - previous) <= tolerance * Math.min(count, previous)) break;
  }
  return windows;
}

/**
 * Instructions (and simulated misses) per second `pid` executes with no requests once it has settled: after a
 * load the process finishes its compilations and collections at valgrind's pace (a window just after a warm-up
 * read 25× the settled rate), so windows of `seconds` are counted until two in a row agree within 25 % by
 * instructions, and the lower is the rate (at most `attempts` windows; the last one's otherwise).
 */
export async function countSettledIdle(pid: number, seconds: number, attempts = 12): Promise<EventTotals> {
  let previous = await countIdle(pid, seconds);
  for (let attempt = 1; attempt < attempts; attempt++) {
    const rate = await countIdle(pid, seconds);
    const [now, before] = [rate.Ir ?? 0, previous.Ir ?? 0];
    const agree = now <= before * 1.25 && before <= now * 1.25;
    // Below a million a second (the bare process: a few hundred) the windows are all but empty.
    if (agree || Math.max(now, before) < 1_000_000) return now <= before ? rate : previous;
    previous = rate;
  }
  return previous;
}

/** Each counter's rate per second in `pid` with no requests, over `seconds` of wall-clock time. */
async function countIdle(pid: number, seconds: number): Promise<EventTotals> {
  const window = await counted(pid, () => new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
  return Object.fromEntries(
    Object.entries(window.totals).map(([event, total]) => [event, Math.round(total / window.seconds)]),
  );
}

/** One URL whose instructions per request are counted, in the process `pid` that answers it. */
export interface CountedUrl {
  url: string;
  pid: number;
  headers?: Record<string, string>;
}

/**
 * A load of the bench's own whose instructions per unit are counted in `pid`: `run(amount)` makes `amount`
 * units (a backend round trip is three requests and a callback) and answers how many it made. `amount` and
 * `warmup` replace BENCH_CALLGRIND_REQUESTS and BENCH_CALLGRIND_WARMUP for it (a unit may be far costlier than
 * one request).
 */
export interface CountedRun {
  pid: number;
  run(amount: number): Promise<number>;
  amount: number;
  warmup: number;
}

export type CountedTarget = CountedUrl | CountedRun;

export interface InstructionComparison<Name extends string> {
  /** Of each URL target (a `CountedRun` brings its own). */
  requestsPerRound: number;
  warmupRequests: number;
  /** The rounds' mean per URL, idle subtracted. */
  perRequest: Record<Name, number>;
  idlePerSecond: Record<Name, number>;
  settling: Record<Name, number[]>;
  rounds: Record<Name, number>[];
  roundsIdleNotSubtracted: Record<Name, number>[];
  /** With BENCH_CALLGRIND_CACHE=1: the rounds' mean simulated misses per request, idle subtracted. */
  missesPerRequest?: Record<Name, CacheMisses>;
}

/**
 * Instructions per request of each URL, in `rounds` alternated rounds of BENCH_CALLGRIND_REQUESTS (10,000)
 * requests each: a warm-up of BENCH_CALLGRIND_WARMUP (100,000) per URL first (V8 still compiles after 30,000:
 * 12,000 of the bare route's 72,000 instructions a request in the first round after them were TurboFan's),
 * each process's settled idle rate subtracted (dauth's timers run at their own pace while requests run ≈ 50×
 * slower), and each URL counted until two windows agree before the rounds start (a fixed warm-up is not always
 * enough on a slow VM). The figure is the rounds' mean, not the median: a major collection (≈ 400 M
 * instructions in dauth) lands in one round and is as much a cost of those requests as a scavenge.
 */
export async function compareInstructionCounts<Name extends string>(
  targets: Record<Name, CountedTarget>,
  rounds: number,
): Promise<InstructionComparison<Name>> {
  const { default: autocannon } = await import('autocannon');
  const requests = Number(process.env.BENCH_CALLGRIND_REQUESTS ?? 10000);
  const warmup = Number(process.env.BENCH_CALLGRIND_WARMUP ?? 100000);
  const idleSeconds = Number(process.env.BENCH_CALLGRIND_IDLE_SECONDS ?? 3);
  const names = Object.keys(targets) as Name[];
  const load = (target: CountedTarget, amount: number): Promise<number> => {
    if ('run' in target) return target.run(amount);
    const { url, headers } = target;
    // A request may wait seconds under valgrind on a busy machine: autocannon's 10-s timeout counted errors.
    const options = {
      url,
      ...(headers ? { headers } : {}),
      connections: 10,
      amount,
      pipelining: 1,
      timeout: 300,
    };
    return autocannon(options).then((r) => {
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r.requests.total;
    });
  };
  const amountOf = (target: CountedTarget) => ('run' in target ? target.amount : requests);
  const warmupOf = (target: CountedTarget) => ('run' in target ? target.warmup : warmup);
  for (const name of names) await load(targets[name], warmupOf(targets[name]));
  const idleOfPid = new Map<number, EventTotals>();
  for (const { pid } of Object.values<CountedTarget>(targets))
    if (!idleOfPid.has(pid)) idleOfPid.set(pid, await countSettledIdle(pid, idleSeconds));
  const byName = <T>(value: (name: Name) => T) =>
    Object.fromEntries(names.map((name) => [name, value(name)])) as Record<Name, T>;
  const idleEvents = byName((name) => idleOfPid.get(targets[name].pid)!);
  const idlePerSecond = byName((name) => idleEvents[name].Ir ?? 0);
  process.stderr.write(`idle instructions per second: ${JSON.stringify(idlePerSecond)}\n`);
  const window = (name: Name) =>
    countInstructions(
      targets[name].pid,
      () => load(targets[name], amountOf(targets[name])),
      idleEvents[name],
    );
  const settling = byName((): number[] => []);
  for (const name of names)
    settling[name] = await countUntilSettled(() => window(name).then((c) => c.perRequest));
  process.stderr.write(`settling windows (instructions per request): ${JSON.stringify(settling)}\n`);
  const counted: Record<Name, number>[] = [];
  const raw: Record<Name, number>[] = [];
  const misses: Record<Name, CacheMisses>[] = [];
  for (let round = 0; round < Math.max(1, rounds); round++) {
    const counts = byName(() => 0);
    const rawCounts = byName(() => 0);
    const roundMisses = byName((): CacheMisses => ({ I1: 0, D1: 0, LL: 0 }));
    for (const name of names) {
      const count = await window(name);
      counts[name] = count.perRequest;
      rawCounts[name] = count.rawPerRequest;
      if (count.missesPerRequest) roundMisses[name] = count.missesPerRequest;
    }
    counted.push(counts);
    raw.push(rawCounts);
    misses.push(roundMisses);
    process.stderr.write(
      `instructions per request, round ${round + 1}: ${JSON.stringify(counts)} (idle not subtracted: ${JSON.stringify(rawCounts)})` +
        (cacheSimulation ? `, simulated misses: ${JSON.stringify(roundMisses)}\n` : '\n'),
    );
  }
  return {
    requestsPerRound: requests,
    warmupRequests: warmup,
    perRequest: byName((name) => Math.round(counted.reduce((sum, r) => sum + r[name], 0) / counted.length)),
    idlePerSecond,
    settling,
    rounds: counted,
    roundsIdleNotSubtracted: raw,
    ...(cacheSimulation
      ? {
          missesPerRequest: byName((name) => {
            const mean = (level: keyof CacheMisses) =>
              Math.round(misses.reduce((sum, r) => sum + r[name][level], 0) / misses.length);
            return { I1: mean('I1'), D1: mean('D1'), LL: mean('LL') };
          }),
        }
      : {}),
  };
}

/** The JSON fields every `compareInstructionCounts` report shares (the bench adds its name and ratios). */
export function instructionCountFields<Name extends string>(counts: InstructionComparison<Name>) {
  return {
    requests_per_round: counts.requestsPerRound,
    warmup_requests: counts.warmupRequests,
    idle_instructions_per_second: counts.idlePerSecond,
    settling_windows: counts.settling,
    rounds: counts.rounds,
    rounds_idle_not_subtracted: counts.roundsIdleNotSubtracted,
    ...(counts.missesPerRequest ? { simulated_cache_misses_per_request: counts.missesPerRequest } : {}),
  };
}
