/**
 * The validate probe's tail under PIN load, lined up with the server's collections and loop stalls:
 * `node bench/probeTail.mjs <BENCH_PROBE_TRACE file> <LOOP_STALLS_OUT file>` (bench/loopStalls.mjs). Takes the
 * probe's longest window (the one under load), prints the collections and stalls inside it, and for each
 * probe from the worst to the p99 one, the collection or stall it overlapped, if any.
 */
import fs from 'node:fs';
import process from 'node:process';

const [probeFile, stallsFile] = process.argv.slice(2);
const windows = fs
  .readFileSync(probeFile, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));
const load = windows.reduce((a, b) => (b.sent.length > a.sent.length ? b : a));
const { gc, stalls } = JSON.parse(fs.readFileSync(stallsFile, 'utf8'));
const from = Math.min(...load.sent.map((s) => s[0]));
const to = Math.max(...load.sent.map((s) => s[0] + s[1]));
const inside = (t) => t >= from && t <= to;
const collections = gc.filter((g) => inside(g[0]));
const loopStalls = stalls.filter((s) => inside(s[0]));
console.log(`${load.sent.length} probes over ${((to - from) / 1000).toFixed(1)} s`);
const byKind = new Map();
for (const [, pause, kind] of collections) byKind.set(kind, [...(byKind.get(kind) ?? []), pause]);
for (const [kind, pauses] of byKind) {
  pauses.sort((a, b) => a - b);
  const median = pauses[pauses.length >> 1].toFixed(2);
  console.log(`GC ${kind}: ${pauses.length}, pause median ${median} ms, max ${pauses.at(-1).toFixed(2)} ms`);
}
const busy = loopStalls.filter((s) => s[2] >= 0.8 * s[1]).length;
console.log(
  `loop stalls over 2 ms: ${loopStalls.length} (${busy} busy, ${loopStalls.length - busy} waiting for a core)`,
);
const worst = [...load.sent].sort((a, b) => b[1] - a[1]);
const p99 = Math.floor(worst.length / 100);
console.log(`p99 = the ${p99 + 1}th worst: ${worst[p99][1].toFixed(2)} ms`);
for (const [sent, latency] of worst.slice(0, p99 + 1)) {
  const g = collections.find((c) => c[0] < sent + latency && c[0] + c[1] > sent);
  const s = loopStalls.find((c) => c[0] < sent + latency && c[0] + c[1] + 10 > sent);
  const what = [
    g ? `GC ${g[2]} ${g[1].toFixed(1)} ms` : '',
    s ? `stall ${s[1].toFixed(1)} ms (CPU ${s[2].toFixed(1)})` : '',
  ].filter(Boolean);
  console.log(`${latency.toFixed(2).padStart(7)} ms  ${what.join(', ') || '—'}`);
}
