/**
 * What outlives the young generation: a sampling heap profile of the objects allocated in a window that
 * a scavenge did not free (V8's sampling heap profiler with `includeObjectsCollectedByMinorGC: false` and
 * `includeObjectsCollectedByMajorGC: true`). Objects a scavenge frees leave the profile; objects promoted
 * to the old generation stay in it, dead or alive. Per-request objects in it are what makes a server's
 * scavenges dear (docs/performance-http.md, round 5).
 *
 * As a preload of the measured process (every `bench` server takes BENCH_NODE_ARGS):
 *
 *   BENCH_NODE_ARGS="--import ./bench/gcSurvivors.mjs" BENCH_ONLY=b BENCH_REPEAT=1 BENCH_SECONDS=8 npm run bench
 *   node bench/gcSurvivors.mjs <dir>/<pid>.heapprofile [--top 15]   # the allocation stacks, largest first
 *
 * GC_SURVIVORS_FROM / GC_SURVIVORS_TO (ms after the process starts; 7000 and 10000) bound the window, which
 * should fall inside the load; GC_SURVIVORS_DIR (os.tmpdir()) is where `<pid>.heapprofile` is written.
 * GC_SURVIVORS_ALL=1 keeps what scavenges free too: the profile is then of everything allocated in the
 * window (bytes per request = its total ÷ the requests served in the window).
 */
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { setTimeout } from 'node:timers';
import { parseArgs } from 'node:util';

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) summarise();
else sampleThisProcess();

function sampleThisProcess() {
  const from = Number(process.env.GC_SURVIVORS_FROM ?? 7000);
  const to = Number(process.env.GC_SURVIVORS_TO ?? 10000);
  const dir = process.env.GC_SURVIVORS_DIR ?? os.tmpdir();
  const session = new inspector.Session();
  session.connect();
  setTimeout(() => {
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 2048,
      includeObjectsCollectedByMinorGC: process.env.GC_SURVIVORS_ALL === '1',
      includeObjectsCollectedByMajorGC: true,
    });
    setTimeout(() => {
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (error) return;
        const file = path.join(dir, `${process.pid}.heapprofile`);
        fs.writeFileSync(file, JSON.stringify(result.profile));
        process.stderr.write(`gcSurvivors: ${file}\n`);
      });
    }, to - from).unref();
  }, from).unref();
}

function summarise() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '15' }, depth: { type: 'string', default: '6' } },
  });
  const profile = JSON.parse(fs.readFileSync(positionals[0], 'utf8'));
  const bySite = new Map();
  let total = 0;
  const frame = ({ functionName, url, lineNumber }) =>
    `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/packages\//, '')}:${lineNumber + 1}`;
  const walk = (node, stack) => {
    const here = [...stack, frame(node.callFrame)];
    if (node.selfSize > 0) {
      const site = here.slice(-Number(values.depth)).reverse().join('\n      <- ');
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, here);
  };
  walk(profile.head, []);
  console.log(
    `${(total / 1e6).toFixed(1)} MB sampled (all allocations with GC_SURVIVORS_ALL=1, else what no scavenge freed)`,
  );
  const sites = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [site, bytes] of sites) console.log(`${(bytes / 1e6).toFixed(2)} MB ${site}`);
}
