/**
 * The V8 behaviour behind src/tickObjectShape.ts (docs/performance-content.md, round 11), without dauth:
 * rounds of `process.nextTick` followed by full collections while no record is alive, then the state of
 * nextTick's five record caches (`%DebugPrint`) and the cost of a call, with and without one record held.
 * Rerun it on a new Node: when "free" reads MONOMORPHIC too, V8 replaces freed classes and the hold can go.
 *
 *   node bench/tickRecordCaches.mjs
 */
import { execFileSync } from 'node:child_process';
import { executionAsyncResource } from 'node:async_hooks';
import { setImmediate, setTimeout } from 'node:timers';

const mode = process.argv[2];
if (mode === undefined) {
  for (const side of ['free', 'held']) {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--allow-natives-syntax', new URL(import.meta.url).pathname, side],
      { encoding: 'utf8' },
    );
    const states = [...out.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]);
    console.log(
      `${side}: record caches ${states.join(' ')}; ${out.split('\n').find((l) => l.startsWith('ns'))}`,
    );
  }
} else {
  let held;
  if (mode === 'held') process.nextTick(() => (held = executionAsyncResource()));
  const noop = () => {};
  // 500 calls at a time, the queue drained in between (as a server's ticks come), 200 times.
  const nsPerCall = async () => {
    let spent = 0n;
    for (let batch = 0; batch < 200; batch++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 500; i++) process.nextTick(noop);
      spent += process.hrtime.bigint() - started;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return Number(spent) / 100_000;
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < 50; i++) process.nextTick(noop);
    await pause();
    globalThis.gc();
    globalThis.gc(); // two: V8 keeps an unused map through one more collection (--retain-maps-for-n-gc=2)
  }
  new Function('f', '%DebugPrint(f)')(process.nextTick);
  const costs = [];
  for (let i = 0; i < 6; i++) {
    costs.push(await nsPerCall());
  }
  process.stdout.write(
    `ns per call (after warm-up): ${costs
      .slice(1)
      .map((c) => c.toFixed(0))
      .join(' ')}\n`,
  );
  if (held === undefined && mode === 'held') throw new Error('no record held');
}
