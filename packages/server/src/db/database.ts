import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  sql,
} from 'kysely';
import pg from 'pg';

/**
 * The database schema. Empty here on purpose: each store declares its own tables by augmenting
 * this interface (`declare module '../db/database.js' { interface Database { … } }`), so a
 * domain's tables live beside the store that owns them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Database {}

export type Db = Kysely<Database>;
export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  /** Cheap round trip used by `/readyz`. */
  ping(): Promise<void>;
  /** Connections of the pool (metrics): PostgreSQL's pg counts; SQLite has one connection, always in use. */
  pool(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

// int8 columns hold millisecond timestamps and user ids, all below 2^53: read them as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite at `sqlitePath`. */
  databaseUrl?: string | undefined;
  sqlitePath?: string;
  /** PostgreSQL schema to use (tests isolate themselves in a fresh schema). */
  pgSchema?: string;
  poolSize?: number;
  /**
   * One CLIENT span per statement under the active span (docs/operations.md, "Traces"): set when tracing
   * is on; off, the driver is not wrapped at all.
   */
  traced?: boolean;
}

export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 20,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    const dialect = new PostgresDialect({ pool });
    const db = new Kysely<Database>({
      dialect: options.traced ? tracedDialect(dialect, 'postgresql') : dialect,
    });
    return {
      db,
      dialect: 'postgres',
      ping: async () => void (await sql`select 1`.execute(db)),
      pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => db.destroy(),
    };
  }
  const file = options.sqlitePath ?? ':memory:';
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // SQLite creates the file (and its -wal/-shm files, which copy the main file's mode) with the
    // process umask, usually 0644: create it owner-only first, and tighten files of older installs.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        fs.chmodSync(f, 0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const cached = withStatementCache(sqlite);
  const dialect = new SqliteDialect({ database: cached });
  const db = new Kysely<Database>({ dialect: options.traced ? tracedDialect(dialect, 'sqlite') : dialect });
  // Traced, every statement must pass through the dialect (one span each): no native path then.
  if (!options.traced) nativeHandles.set(db, cached);
  return {
    db,
    dialect: 'sqlite',
    ping: async () => void (await sql`select 1`.execute(db)),
    pool: () => ({ total: 1, idle: 0, waiting: 0 }),
    close: () => db.destroy(),
  };
}

const nativeHandles = new WeakMap<Db, SQLite.Database>();

/**
 * The better-sqlite3 handle behind `db` (its prepared statements cached by text), for a hot path that runs a
 * whole transaction synchronously (`handle.transaction(fn)`: BEGIN and COMMIT issued natively, no promise
 * per statement). Undefined on PostgreSQL and when statements are traced.
 *
 * Only while `handle.inTransaction` is false: Kysely's transactions hold the same single connection across
 * awaits, and a native transaction begun inside one would become a savepoint of it (committed or rolled
 * back with it). Callers check it and otherwise take their Kysely path, which waits for the connection.
 */
export function nativeSqlite(db: Db): SQLite.Database | undefined {
  return nativeHandles.get(db);
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every query anew; preparing is a measurable share of a request on
 * the hot paths (code exchange, validation, consumption). The queries are a small fixed set of SQL
 * texts, so prepared statements are reused by text. better-sqlite3 statements are safe to reuse
 * (Kysely runs them with `all`/`run`, never leaves an iterator open), and SQLite re-prepares one by
 * itself if a migration changes the schema underneath.
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = sqlite.prepare.bind(sqlite);
  return new Proxy(sqlite, {
    get(target, property) {
      if (property !== 'prepare') {
        const value = Reflect.get(target, property) as unknown;
        // Native methods must run with the real database as `this`, not the proxy.
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          statement = prepare(source);
          // Bounded: drop the oldest entry (Map keeps insertion order).
          if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}

/**
 * The dialect with each statement as a CLIENT span (`db.system.name`, `db.query.text` with its `$1`/`?`
 * placeholders, never the parameter values), only under an active span: a background poll's statements
 * outside any trace are not worth a trace each. Wrapped at the driver's connection, so transactions'
 * `begin`/`commit` count too, on both databases alike.
 */
function tracedDialect(dialect: Dialect, system: 'sqlite' | 'postgresql'): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => {
      const driver = dialect.createDriver();
      return passThrough(driver, {
        acquireConnection: async () => tracedConnection(await driver.acquireConnection(), system),
      });
    },
  };
}

function tracedConnection(
  connection: DatabaseConnection,
  system: 'sqlite' | 'postgresql',
): DatabaseConnection {
  return passThrough(connection, {
    executeQuery: <R>(query: CompiledQuery) => {
      const parent = trace.getSpan(context.active());
      if (!parent?.isRecording()) return connection.executeQuery<R>(query);
      const { operation, target } = statementOf(query.sql);
      return trace.getTracer('dauth').startActiveSpan(
        target ? `${operation} ${target}` : operation,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'db.system.name': system,
            'db.system': system,
            'db.operation.name': operation,
            ...(target ? { 'db.collection.name': target } : {}),
            'db.query.text': query.sql,
          },
        },
        async (span) => {
          try {
            return await connection.executeQuery<R>(query);
          } catch (err) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
            throw err;
          } finally {
            span.end();
          }
        },
      );
    },
  });
}

/** A proxy that answers `overrides` and passes everything else to the real object, methods bound to it. */
function passThrough<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(real, property) {
      if (property in overrides) return overrides[property as keyof T];
      const value = Reflect.get(real, property) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(real) : value;
    },
  }) as T;
}

/** The statement's verb and first table (`SELECT "users"`), for the span's name. */
function statementOf(text: string): { operation: string; target: string | undefined } {
  const operation = (/^\s*(\w+)/.exec(text)?.[1] ?? 'query').toUpperCase();
  const target = /\b(?:from|into|update|table)\s+"?([\w.]+)"?/i.exec(text)?.[1];
  return { operation, target };
}
