/**
 * Shares of a V8 CPU profile (`--cpu-prof`) by cost category: each sample is charged to the first
 * category found walking up its stack from the leaf (checking the categories in order at each
 * frame). Coarser than `bench/profileTop.ts`, for "where does a request's CPU go" tables in
 * docs/performance-*.md.
 *
 *   node bench/profileCategories.mjs <file.cpuprofile> [--last 11] [--skip-end 0]
 *
 * `--last s`: only the s seconds before the window's end; `--skip-end s`: the window ends s seconds
 * before the profile does (for a server that outlived the run of interest).
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { last: { type: 'string' }, 'skip-end': { type: 'string', default: '0' } },
});
const profile = JSON.parse(fs.readFileSync(positionals[0], 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const times = [];
let t = profile.endTime;
for (let i = profile.samples.length - 1; i >= 0; i--) {
  times[i] = t;
  t -= profile.timeDeltas[i] ?? 0;
}
const to = profile.endTime - Number(values['skip-end']) * 1e6;
const from = values.last === undefined ? -Infinity : to - Number(values.last) * 1e6;

const categories = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  [
    'socket writes (writev: kernel)',
    (f) => ['writev', 'writeUtf8String', 'writeBuffer'].includes(f.functionName),
  ],
  [
    'SQL (Kysely, better-sqlite3, pg, stores)',
    (f) => /kysely|better-sqlite3|\/pg\/|pg-protocol|db\/database\.ts|stores\//.test(f.url),
  ],
  ['ES256 signing (signJwt)', (f) => f.functionName === 'signJwt'],
  [
    'callback out (node:http client, SSRF vet)',
    (f) => /callbackSender|callbackTargetPolicy|_http_client|_http_agent/.test(f.url),
  ],
  ['logging (pino)', (f) => /pino|logger-factory/.test(f.url)],
  ['metrics and audit hooks', (f) => /metrics\.ts|audit/i.test(f.url)],
  ['JSON responses (lossless)', (f) => /losslessJson|sendJson/.test(f.url)],
  ['rate limits', (f) => /rate-limit|rateLimit/.test(f.url)],
  ['JWT verification, token service', (f) => /authenticator|tokenService/.test(f.url)],
  ['Fastify (routing, hooks, validation, reply)', (f) => /fastify|find-my-way|avvio|ajv/.test(f.url)],
  [
    'node:http server (parser, streams)',
    (f) =>
      /_http_server|_http_common|_http_outgoing|_http_incoming|streams|stream_base|^node:net$/.test(f.url),
  ],
  ['own code (services, routes)', (f) => /packages\/server\/src/.test(f.url)],
];
const shares = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id);
  if (['(idle)', '(program)'].includes(node.callFrame.functionName) || times[i] < from || times[i] > to)
    return;
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  let name = 'other (microtasks, timers, events)';
  found: for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const frame = byId.get(cur).callFrame;
    for (const [category, test] of categories) {
      if (test(frame)) {
        name = category;
        break found;
      }
    }
  }
  shares.set(name, (shares.get(name) ?? 0) + dt);
});
console.log(`${(total / 1000).toFixed(0)} ms of non-idle samples`);
for (const [name, v] of [...shares].sort((a, b) => b[1] - a[1])) {
  console.log(`${((100 * v) / total).toFixed(1).padStart(5)} %  ${name}`);
}
