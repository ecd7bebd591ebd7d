import type SQLite from 'better-sqlite3';
import { type Compilable, CompiledQuery } from 'kysely';
import { type Db, nativeSqlite } from './database.js';

/** What a prepared query answered: its rows (a SELECT, or a write's RETURNING) and the rows a write touched. */
export interface PreparedResult<R> {
  rows: R[];
  affected: number;
}

/** A query built once and run with new values: `run(...values)` in the order the builder took them. */
export interface PreparedQuery<A extends unknown[], R> {
  run(...values: A): Promise<PreparedResult<R>>;
  /** The compiled SQL, with the dialect's placeholders (tests, traces). */
  readonly sql: string;
}

/** Stands for the builder's argument `index` until the query is run. */
class Placeholder {
  constructor(readonly index: number) {}
}

/**
 * A hot query whose shape never changes (no optional clauses, no lists of varying length), built with Kysely
 * once: `build` gets placeholders where the values go, the query is compiled once, and each `run` binds the
 * values in the placeholders' places. On SQLite's native handle (`nativeSqlite`, when no Kysely transaction
 * holds the connection) it runs as a cached better-sqlite3 statement, synchronously: no query building or
 * compiling, connection mutex or promise per statement, which cost as much as SQLite's own work on the
 * short statements of a sign-in (docs/mfa.md, round 4). Elsewhere (PostgreSQL, traced SQLite, inside a
 * transaction) the compiled query goes through Kysely's executor, without building or compiling it again.
 *
 * A value the builder was given as a constant (not through an argument) is bound as it was.
 */
export function prepareQuery<A extends unknown[], R>(
  db: Db,
  build: (db: Db, ...values: A) => Compilable<R>,
): PreparedQuery<A, R> {
  // One placeholder per declared parameter after `db` (`build.length`: no rest or default parameters).
  const placeholders = Array.from({ length: build.length - 1 }, (_, i) => new Placeholder(i));
  const compiled = build(db, ...(placeholders as unknown as A)).compile();
  if (compiled.parameters.some((value) => value === undefined)) {
    // A value the builder did not get as a placeholder (a rest or default parameter) would be bound as
    // `undefined` on every run: refuse at start-up rather than query with it.
    throw new Error('prepareQuery: take every value as a plain parameter of the builder');
  }
  const slots = compiled.parameters.map((value) =>
    value instanceof Placeholder ? { index: value.index } : { value },
  );
  const bind = (values: A): unknown[] =>
    slots.map((slot) => ('index' in slot ? values[slot.index as number] : slot.value));
  const native = nativeSqlite(db);
  // Prepared at the first native run and kept: a statement stays valid (SQLite re-prepares it itself after
  // a schema change), so no lookup by text per run.
  let statement: SQLite.Statement | undefined;
  return {
    sql: compiled.sql,
    async run(...values: A): Promise<PreparedResult<R>> {
      const parameters = bind(values);
      if (native && !native.inTransaction) {
        statement ??= native.prepare(compiled.sql);
        if (statement.reader) return { rows: statement.all(parameters) as R[], affected: 0 };
        return { rows: [], affected: statement.run(parameters).changes };
      }
      const result = await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters));
      return { rows: result.rows, affected: Number(result.numAffectedRows ?? 0n) };
    },
  };
}
