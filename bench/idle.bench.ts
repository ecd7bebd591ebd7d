/**
 * What an idle dauth costs: the CPU per second of a real server (child process, embedded chain, SQLite) that
 * nothing calls — chain head polling, workers' timers, the collector. Every other benchmark's server pays it
 * (docs/performance-http.md, round 7: at 20,000 validations a second each one carries ≈ 2 µs of it; the PIN
 * share and the MFA step are measured net of it).
 *
 * After `--warmup` seconds (start-up's compilation and first collections settle), `--windows` windows of
 * `--seconds` each; the median window is the figure, the spread is printed beside it. CPU is the scheduler's
 * account of all the process's threads (/proc schedstat), so the collector's helper threads count.
 *
 *   npm run bench:idle
 *   npm run bench:idle -- --windows 5 --seconds 10
 */
import { parseArgs } from 'node:util';
import { processRunSeconds, startDauthProcess } from './dauthProcess.js';

const { values } = parseArgs({
  options: {
    warmup: { type: 'string', default: '10' },
    windows: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
  },
});
const warmupSeconds = Number(values.warmup);
const windows = Number(values.windows);
const seconds = Number(values.seconds);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const server = await startDauthProcess('idle', {});
try {
  await sleep(warmupSeconds * 1000);
  const perSecond: number[] = [];
  for (let i = 0; i < windows; i++) {
    const cpu = processRunSeconds(server.pid);
    const start = performance.now();
    await sleep(seconds * 1000);
    const ms = ((processRunSeconds(server.pid) - cpu) * 1000) / ((performance.now() - start) / 1000);
    perSecond.push(ms);
    process.stdout.write(`window ${i + 1}: ${ms.toFixed(1)} ms of CPU per second\n`);
  }
  const sorted = [...perSecond].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  process.stdout.write(
    `idle dauth: ${median.toFixed(1)} ms of CPU per second (median of ${windows} × ${seconds} s; ` +
      `${sorted[0]!.toFixed(1)}–${sorted.at(-1)!.toFixed(1)})\n`,
  );
} finally {
  await server.stop();
}
