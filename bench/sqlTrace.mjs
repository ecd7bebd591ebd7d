/**
 * A preload that counts SQLite statement executions by SQL text in a dauth process, and the time each
 * text took in all (`ms`: wall time of the synchronous call, which runs on the event loop, so CPU unless
 * SQLite waits on the disk), and writes them (most frequent first) to `$SQL_TRACE_OUT` when the process
 * exits. For finding the
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
      const entry = counts.get(source) ?? { count: 0, ns: 0n };
      counts.set(source, entry);
      entry.count++;
      const started = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        entry.ns += process.hrtime.bigint() - started;
      }
    };
  }
  return statement;
};
process.on('exit', () => {
  const out = process.env.SQL_TRACE_OUT ?? 'sql-trace.json';
  fs.writeFileSync(
    out,
    JSON.stringify(
      [...counts]
        .sort((a, b) => b[1].count - a[1].count)
        .map(([sql, { count, ns }]) => ({
          sql,
          count,
          ms: Number(ns / 1000n) / 1000,
          us_each: Number(ns / BigInt(count) / 10n) / 100,
        })),
      null,
      1,
    ),
  );
});
