/**
 * Which of V8's inline caches went megamorphic, and the hidden classes each met: reads a log written by
 *
 *   BENCH_NODE_ARGS="--log-ic --log-maps --log-maps-details --logfile=/tmp/ic.log --no-logfile-per-isolate" \
 *     BENCH_ROUNDS=0 BENCH_SLOTS=1 BENCH_BALANCE_ROUNDS=1 npm run bench:content -- --journal on
 *   node bench/icSites.mjs /tmp/ic.log 'node:internal/streams|fastify/lib'
 *
 * One site per line (`LoadIC <function> <script:line:col> @<line:col of the access> key=<property>`), then each
 * hidden class it met: its constructor and its own property names (`@` for a symbol). A site's function is
 * found from the log's code creations and moves, and a class from its `map-details`; a class made before the
 * log started (Node's start-up snapshot) shows as "(no details)". docs/performance-http.md, round 11.
 */
import fs from 'node:fs';
import readline from 'node:readline';

const [file, pattern = '.'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/icSites.mjs <v8 log> [site pattern]');
  process.exit(2);
}
const sitePattern = new RegExp(pattern);
const PAGE = 4096;

/** Code objects by page, each with the log line numbers it lived between (code moves and is replaced). */
const codePages = new Map();
const codeByStart = new Map();
function addCode(code) {
  for (let page = Math.floor(code.start / PAGE); page <= Math.floor((code.end - 1) / PAGE); page++) {
    if (!codePages.has(page)) codePages.set(page, []);
    codePages.get(page).push(code);
  }
  codeByStart.set(code.start, code);
}
function functionAt(pc, line) {
  let found;
  for (const code of codePages.get(Math.floor(pc / PAGE)) ?? []) {
    if (
      code.start <= pc &&
      pc < code.end &&
      code.born <= line &&
      line < code.died &&
      (!found || code.born > found.born)
    )
      found = code;
  }
  return found?.name ?? '?';
}

const classDetails = new Map();
const sites = new Map();
let lineNumber = 0;
for await (const line of readline.createInterface({ input: fs.createReadStream(file) })) {
  lineNumber++;
  if (line.startsWith('map-details,')) {
    const addressStart = line.indexOf(',', 12) + 1;
    const addressEnd = line.indexOf(',', addressStart);
    classDetails.set(line.slice(addressStart, addressEnd), line.slice(addressEnd + 1));
    continue;
  }
  const fields = line.split(',');
  if (fields[0] === 'code-creation') {
    const start = parseInt(fields[4], 16);
    const replaced = codeByStart.get(start);
    if (replaced) replaced.died = lineNumber;
    addCode({
      start,
      end: start + Number(fields[5]),
      name: fields[6].trim(),
      born: lineNumber,
      died: Infinity,
    });
  } else if (fields[0] === 'code-move') {
    const moved = codeByStart.get(parseInt(fields[1], 16));
    if (!moved) continue;
    moved.died = lineNumber;
    codeByStart.delete(moved.start);
    const to = parseInt(fields[2], 16);
    addCode({ ...moved, start: to, end: to + moved.end - moved.start, born: lineNumber, died: Infinity });
  } else if (fields[0].endsWith('IC') && fields.length > 8) {
    // type, pc, time, line, column, old state, new state, map, key, modifier, slow reason
    const [type, pc, , accessLine, accessColumn, , newState, map, key] = fields;
    const site = `${type} ${functionAt(parseInt(pc, 16), lineNumber)} @${accessLine}:${accessColumn} key=${key}`;
    if (!sitePattern.test(site)) continue;
    if (!sites.has(site)) sites.set(site, { classes: [], megamorphic: false });
    const entry = sites.get(site);
    if (!entry.classes.includes(map)) entry.classes.push(map);
    if (newState === 'N') entry.megamorphic = true;
  }
}

function describeClass(address) {
  const details = classDetails.get(address);
  if (!details) return '(no details)';
  const constructor = /constructor: [^<]*<([^>]*)>/.exec(details)?.[1] ?? '';
  const keys = [...details.matchAll(/\[String\]: #(\w+) \(|<Symbol: (\w+)>/g)].map((m) => m[1] ?? `@${m[2]}`);
  return `${constructor} [${keys.join(' ')}]`;
}

for (const [site, { classes, megamorphic }] of [...sites].sort(([a], [b]) => a.localeCompare(b))) {
  if (!megamorphic) continue;
  console.log(site);
  for (const address of classes) console.log(`    ${address} ${describeClass(address)}`);
}
