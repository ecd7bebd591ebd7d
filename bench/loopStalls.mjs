/**
 * A preload that records, in a dauth process under a benchmark's load, its garbage collections (start,
 * pause, kind) and its event loop's stalls (a 10-ms interval timer that fired more than 2 ms late, with the
 * main thread's CPU time over that stretch: CPU ≈ the stall means the loop was busy, far less means the
 * thread waited for a core), and writes them to `$LOOP_STALLS_OUT` every 2 s and at exit. Read beside
 * `BENCH_PROBE_TRACE` with `bench/probeTail.mjs` (docs/performance-pin.md, round 7):
 *
 *   BENCH_PROBE_TRACE=/tmp/probe.jsonl LOOP_STALLS_OUT=/tmp/stalls.json \
 *     BENCH_NODE_ARGS="--import ./bench/loopStalls.mjs" npm run bench:pin
 *   node bench/probeTail.mjs /tmp/probe.jsonl /tmp/stalls.json
 */
import fs from 'node:fs';
import process from 'node:process';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';

const out = process.env.LOOP_STALLS_OUT ?? 'loop-stalls.json';
const TICK_MS = 10;
const LATE_MS = 2;
const kinds = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
/** [epoch ms, pause ms, kind] */
const gc = [];
/** [epoch ms, stall ms beyond the tick, main-thread CPU ms over the stretch] */
const stalls = [];

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.push([
      performance.timeOrigin + e.startTime,
      e.duration,
      kinds[e.detail?.kind] ?? String(e.detail?.kind),
    ]);
  }
}).observe({ entryTypes: ['gc'] });

let last = performance.now();
let lastCpu = process.threadCpuUsage();
setInterval(() => {
  const now = performance.now();
  const cpu = process.threadCpuUsage();
  if (now - last > TICK_MS + LATE_MS) {
    const cpuMs = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000;
    stalls.push([performance.timeOrigin + last, now - last - TICK_MS, cpuMs]);
  }
  last = now;
  lastCpu = cpu;
}, TICK_MS).unref();

const write = () => fs.writeFileSync(out, JSON.stringify({ gc, stalls }));
setInterval(write, 2000).unref();
process.on('exit', write);
