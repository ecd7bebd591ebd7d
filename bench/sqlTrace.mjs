/**
 * A preload that counts SQLite statement executions by SQL text in a dauth process, and writes
 * them (most frequent first) to `$SQL_TRACE_OUT` when the process exits. For finding the
 * statements of a request under a benchmark's load (docs/performance-*.md), e.g.
 *
 *   BENCH_NODE_ARGS="--import ./bench/sqlTrace.mjs" SQL_TRACE_OUT=/tmp/sql.json npm run bench:backend
 *
 * It wraps better-sqlite3's `prepare` (the Kysely driver prepares through it), so it sees SQLite
 * only; it changes no statement.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../packages/server/package.json', import.meta.url));
const Database = require('better-sqlite3');
const counts = new Map();
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function countedPrepare(source, ...rest) {
  const statement = prepare.call(this, source, ...rest);
  for (const method of ['all', 'run', 'get', 'iterate']) {
    const original = statement[method];
    if (typeof original !== 'function') continue;
    statement[method] = function counted(...args) {
      counts.set(source, (counts.get(source) ?? 0) + 1);
      return original.apply(this, args);
    };
  }
  return statement;
};
process.on('exit', () => {
  const out = process.env.SQL_TRACE_OUT ?? 'sql-trace.json';
  fs.writeFileSync(
    out,
    JSON.stringify(
      [...counts].sort((a, b) => b[1] - a[1]),
      null,
      1,
    ),
  );
});
