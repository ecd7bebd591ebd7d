import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  type Migration,
  type MigrationProvider,
  type MigrationResultSet,
  Migrator,
  PostgresAdapter,
  sql,
} from 'kysely';
import type { Db } from './database.js';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Reads every `NNNN_name.(ts|js)` module in `migrations/`. Works from `src/` under vitest/tsx and
 * from `dist/` under node, so one set of migrations serves both SQLite and PostgreSQL.
 */
class DirectoryMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await fs.readdir(migrationsDir)).filter(
      (f) => /^\d{4}_[\w-]+\.(ts|js)$/.test(f) && !f.endsWith('.d.ts'),
    );
    const migrations: Record<string, Migration> = {};
    for (const file of files.sort()) {
      const mod = (await import(pathToFileURL(path.join(migrationsDir, file)).href)) as Migration;
      migrations[file.replace(/\.(ts|js)$/, '')] = mod;
    }
    return migrations;
  }
}

/**
 * The PostgreSQL schema the connection works in. Kysely otherwise looks for its bookkeeping tables
 * in every schema of the database, so a fresh schema beside another migrated one (parallel test
 * runs) would be taken as already set up and fail with `kysely_migration_lock does not exist`.
 */
async function currentPgSchema(db: Db): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return result.rows[0]?.schema;
}

/**
 * Kysely's introspection (does the migration table exist?) scans the catalog of every schema, asking
 * `has_schema_privilege` for each schema and `pg_get_serial_sequence` for each column by name. Another
 * process changing its own schema during that scan fails it although nothing of ours is wrong: a schema
 * dropped gives 3F000 `schema … does not exist`, a table dropped with it 42P01 `relation "<schema>.<table>"
 * does not exist`, and a column dropped (another suite migrating down) 42703 `column "…" of relation "…"
 * does not exist` (seen in CI). Seen with parallel test suites on one database; a production database whose
 * schemas come and go would see it too. An error that names our own schema is real, and so is any error of
 * one of our migrations (Kysely reports those with the migration's name, which a scan's error never has).
 */
const anotherSchemaChanged = (outcome: MigrationResultSet, schema: string | undefined): boolean => {
  const { error } = outcome;
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = String((error as Error | undefined)?.message);
  if (schema === undefined) return false;
  if (code === '3F000') return !message.includes(`"${schema}"`);
  if (code === '42703') {
    return (
      /column "[^"]+" of relation "[^"]+" does not exist/.test(message) &&
      !outcome.results?.some((result) => result.status === 'Error')
    );
  }
  return (
    code === '42P01' &&
    /relation "[^".]+\.[^"]+" does not exist/.test(message) &&
    !message.includes(`"${schema}.`)
  );
};

/**
 * Takes the database to `target` (a migration's name: up or down to it; `latest`: every migration), in the
 * connection's own schema on PostgreSQL, retrying while another schema changed under Kysely's scan. The
 * result set is Kysely's, unchecked: `migrateToLatest` throws on its error, the migration tests read it.
 */
export async function migrateTo(db: Db, target: string): Promise<MigrationResultSet> {
  const schema = await currentPgSchema(db);
  const migrator = new Migrator({
    db,
    provider: new DirectoryMigrationProvider(),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const run = () => (target === 'latest' ? migrator.migrateToLatest() : migrator.migrateTo(target));
  let outcome = await run();
  for (let attempt = 1; attempt < 20 && anotherSchemaChanged(outcome, schema); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    outcome = await run();
  }
  return outcome;
}

export async function migrateToLatest(db: Db): Promise<void> {
  const { error, results } = await migrateTo(db, 'latest');
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
