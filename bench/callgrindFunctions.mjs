/**
 * Instructions per request by function, from callgrind dumps of `BENCH_CALLGRIND=1` (bench/instructionCount.ts).
 * V8's compiled JavaScript has no symbols, so callgrind names it by address; started with `--perf-basic-prof`
 * (BENCH_NODE_ARGS), the process writes `/tmp/perf-<pid>.map`, through which this names those addresses
 * (`JIT <function> <file>:<line>`). One dump: its costliest functions. Two: the second minus the first,
 * largest differences first (e.g. dauth's `/healthz` round, then its `balance_adex` round). Dumps of two
 * processes (the bare route's, then dauth's) each need their own map: give `--map` once per dump, in order
 * (BENCH_BARE_NODE_ARGS=--perf-basic-prof gives the bare process one).
 *
 *   node bench/callgrindFunctions.mjs --requests 3000 [--map /tmp/perf-<pid>.map]… [--top 40] <dump> [<dump>]
 *
 * `--callers <regexp>` (one dump): who calls the functions whose name matches, each caller with the inclusive
 * instructions per request of those calls, read from the dump's call graph. A builtin's total does not say where
 * it runs from (`KeyedStoreIC_Megamorphic` was ≈ 1,110 instructions a request inside Fastify's `routeHandler`:
 * docs/performance-http.md, round 15); this does.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: 'string' },
    map: { type: 'string', multiple: true },
    top: { type: 'string', default: '40' },
    callers: { type: 'string' },
  },
});
if (!values.requests || positionals.length < 1 || positionals.length > (values.callers ? 1 : 2)) {
  console.error(
    'usage: callgrindFunctions.mjs --requests N [--map perf.map]… [--top K] [--callers REGEXP] <dump> [<dump>]',
  );
  process.exit(2);
}
const requests = Number(values.requests);

/** A perf map's code ranges, sorted by start, for a binary search. */
const rangesOf = (map) =>
  (map ? fs.readFileSync(map, 'utf8').split('\n') : [])
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(' ');
      return {
        start: parseInt(start, 16),
        end: parseInt(start, 16) + parseInt(size, 16),
        name: name.join(' '),
      };
    })
    .sort((a, b) => a.start - b.start);

function jitName(ranges, address) {
  let low = 0;
  let high = ranges.length - 1;
  let found;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (ranges[middle].start <= address) {
      found = ranges[middle];
      low = middle + 1;
    } else high = middle - 1;
  }
  return found && address < found.end ? `JIT ${found.name.replace(/^JS:[*+~^]?'?/, '')}` : 'JIT (unnamed)';
}

/** Self cost (instructions) per function of one dump, via callgrind_annotate. */
function selfCosts(dump, ranges) {
  const text = execFileSync('callgrind_annotate', ['--threshold=100', '--inclusive=no', dump], {
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
  });
  const costs = new Map();
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (!match || match[2].includes('PROGRAM TOTALS')) continue;
    const address = /^\?\?\?:0x([0-9a-f]+)/.exec(match[2]);
    const name = address ? jitName(ranges, parseInt(address[1], 16)) : match[2].replace(/\s*\[[^\]]*\]$/, '');
    costs.set(name, (costs.get(name) ?? 0) + Number(match[1].replaceAll(',', '')));
  }
  return costs;
}

/**
 * Inclusive instructions of the calls into functions matching `callee`, by caller, from the dump's call graph:
 * `fn=` names the function whose lines follow, `cfn=` the one it calls, and the line after `calls=` holds the
 * call's inclusive cost. Callgrind names a function once as `(id) name` and by `(id)` after that; JIT code it
 * names by address, which the perf map turns into a name.
 */
function callerCosts(dump, ranges, callee) {
  const names = new Map();
  const nameOf = (id, given) => {
    if (given !== undefined) {
      const address = /^0x([0-9a-f]+)$/.exec(given);
      names.set(id, address ? jitName(ranges, parseInt(address[1], 16)) : given);
    }
    return names.get(id);
  };
  const costs = new Map();
  let caller = '';
  let called = '';
  let callLine = false;
  for (const line of fs.readFileSync(dump, 'utf8').split('\n')) {
    const named = /^(c?fn)=\((\d+)\)(?: (.*))?$/.exec(line);
    if (named) {
      if (named[1] === 'fn') caller = nameOf(named[2], named[3]);
      else called = nameOf(named[2], named[3]);
    } else if (line.startsWith('calls=')) callLine = true;
    else if (callLine) {
      callLine = false;
      if (callee.test(called)) {
        const key = `${caller}  →  ${called}`;
        costs.set(key, (costs.get(key) ?? 0) + Number(line.split(' ')[1]));
      }
    }
  }
  return costs;
}

const perRequest = (n) => Math.round(n / requests);
if (values.callers) {
  const costs = callerCosts(positionals[0], rangesOf(values.map?.[0]), new RegExp(values.callers));
  for (const [name, n] of [...costs].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
    console.log(`${String(perRequest(n)).padStart(8)}  ${name.slice(0, 200)}`);
  process.exit(0);
}
// One map for both dumps (one process), or one per dump (two processes).
const maps = values.map ?? [];
const [first, second] = positionals.map((dump, i) =>
  selfCosts(dump, rangesOf(maps[Math.min(i, maps.length - 1)])),
);
const total = (costs) => [...costs.values()].reduce((sum, n) => sum + n, 0);
if (!second) {
  console.log(`total ${perRequest(total(first))} instructions per request`);
  for (const [name, n] of [...first].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
    console.log(`${String(perRequest(n)).padStart(8)}  ${name.slice(0, 150)}`);
} else {
  console.log(`total ${perRequest(total(first))} → ${perRequest(total(second))} instructions per request`);
  const names = new Set([...first.keys(), ...second.keys()]);
  const rows = [...names].map((name) => ({ name, a: first.get(name) ?? 0, b: second.get(name) ?? 0 }));
  for (const { name, a, b } of rows.sort((x, y) => y.b - y.a - (x.b - x.a)).slice(0, Number(values.top)))
    console.log(
      `${String(perRequest(b - a)).padStart(8)} ${String(perRequest(a)).padStart(8)} ${String(perRequest(b)).padStart(8)}  ${name.slice(0, 140)}`,
    );
}
