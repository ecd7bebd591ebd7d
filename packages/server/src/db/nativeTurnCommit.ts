import type SQLite from 'better-sqlite3';
import { type Db, nativeSqlite } from './database.js';
import { GroupCommit } from './groupCommit.js';

/** A store's synchronous write on the native handle, and the same write on Kysely's path. */
interface TurnWork {
  /** Runs inside the turn's transaction (never commits by itself); throws to roll the turn back. */
  run: () => unknown;
  /** The write in its own commit on Kysely's path: while a Kysely transaction holds the connection. */
  alone: () => unknown;
}

/**
 * One SQLite transaction per event-loop turn, shared by every store that submits its write here: where
 * each store's own `GroupCommit` gives a turn one commit per kind of write, this gives it one commit in all
 * (the backend flow's authorize inserts a code while get_token, a turn later or the same, opens a grant:
 * two WAL commits a turn before, one now; docs/performance-backend.md, round 6). The guarantees are
 * `GroupCommit`'s: each caller is answered only after the commit that holds its write; a turn whose
 * transaction throws is retried write by write, each in its own transaction, so one bad write fails alone;
 * while a Kysely transaction holds SQLite's one connection, each write takes its Kysely path and waits.
 */
export class NativeTurnCommit {
  readonly #turns: GroupCommit<TurnWork, unknown>;

  constructor(native: SQLite.Database) {
    const together = native.transaction((works: readonly TurnWork[]) => works.map((w) => w.run()));
    const alone = native.transaction((work: TurnWork) => work.run());
    this.#turns = new GroupCommit<TurnWork, unknown>({
      all: (works) => together(works),
      one: (work) => (native.inTransaction ? work.alone() : alone(work)),
      ready: () => !native.inTransaction,
    });
  }

  /**
   * Resolves with `run`'s result once the turn's transaction has committed, or with `alone`'s when the write
   * had to take Kysely's path. Both must decide the same outcome for the same stored state.
   */
  submit<O>(run: () => O, alone: () => O | Promise<O>): Promise<O> {
    return this.#turns.submit({ run, alone }) as Promise<O>;
  }

  /** Writes committed by turns, and in how many turns, since the process started (tests, benchmarks). */
  stats(): { batches: number; writes: number } {
    return { batches: this.#turns.batches, writes: this.#turns.inputs };
  }
}

const turnCommits = new WeakMap<SQLite.Database, NativeTurnCommit>();

/** The database's shared turn commit: one per SQLite handle; undefined on PostgreSQL and traced SQLite. */
export function nativeTurnCommit(db: Db): NativeTurnCommit | undefined {
  const native = nativeSqlite(db);
  if (!native) return undefined;
  let turns = turnCommits.get(native);
  if (!turns) turnCommits.set(native, (turns = new NativeTurnCommit(native)));
  return turns;
}
