/**
 * The top costs of V8 CPU profiles (`--cpu-prof`): self time by function, and inclusive time of a
 * few named frames, as a share of the profile's non-idle samples. Used for docs/performance-*.md.
 *
 *   node --import tsx bench/profileTop.ts <file.cpuprofile | dir> [--top 25] [--frame name ...] [--last s] [--until s]
 *
 * `--last <s>`: only the profile's last s seconds (a server profiled under a bench's load is stopped
 * right after it, so this drops its start-up and the bench's set-up). `--until <s>`: and only up to s
 * seconds before its end (one phase of a bench that runs several back to back, e.g. `--last 11 --until 6`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    frame: { type: 'string', multiple: true },
    last: { type: 'string' },
    until: { type: 'string' },
  },
});
const files = positionals.flatMap((p) =>
  fs.statSync(p).isDirectory()
    ? fs
        .readdirSync(p)
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((f) => path.join(p, f))
    : [p],
);
const IDLE = new Set(['(idle)', '(program)']);

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) => {
    const url = n.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/packages\//, '');
    return `${n.callFrame.functionName || '(anonymous)'} ${url ? `${url}:${n.callFrame.lineNumber + 1}` : ''}`.trim();
  };
  // Sample times (µs), from the end backwards, for --last.
  const times: number[] = [];
  let t = profile.endTime;
  for (let i = profile.samples.length - 1; i >= 0; i--) {
    times[i] = t;
    t -= profile.timeDeltas[i] ?? 0;
  }
  const from = values.last === undefined ? -Infinity : profile.endTime - Number(values.last) * 1e6;
  const to = values.until === undefined ? Infinity : profile.endTime - Number(values.until) * 1e6;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    if (IDLE.has(node.callFrame.functionName) || times[i]! < from || times[i]! > to) return;
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    self.set(label(node), (self.get(label(node)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const name = byId.get(cur)!.callFrame.functionName;
      for (const frame of values.frame ?? []) {
        if (!seen.has(frame) && name === frame) {
          seen.add(frame);
          inclusive.set(frame, (inclusive.get(frame) ?? 0) + dt);
        }
      }
    }
  });
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1)}%`.padStart(6);
console.log(`${files.length} profile(s), ${(total / 1000).toFixed(0)} ms of non-idle samples\n`);
console.log('self time:');
for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${pct(t)}  ${name}`);
}
if (inclusive.size > 0) {
  console.log('\ninclusive time:');
  for (const [name, t] of [...inclusive].sort((a, b) => b[1] - a[1])) console.log(`${pct(t)}  ${name}`);
}
