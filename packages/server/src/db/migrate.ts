import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';
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
 * Kysely's introspection (does the migration table exist?) scans the catalog of every schema and asks
 * `has_schema_privilege` for each: a schema another process drops during that scan fails it with
 * 3F000 `schema … does not exist`, although nothing of ours is wrong. Seen with parallel test suites
 * on one database; a production database whose schemas come and go would see it too.
 */
const anotherSchemaVanished = (error: unknown, schema: string | undefined): boolean =>
  (error as { code?: unknown } | undefined)?.code === '3F000' &&
  schema !== undefined &&
  !String((error as Error).message).includes(`"${schema}"`);

export async function migrateToLatest(db: Db): Promise<void> {
  const schema = await currentPgSchema(db);
  const migrator = new Migrator({
    db,
    provider: new DirectoryMigrationProvider(),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  let outcome = await migrator.migrateToLatest();
  for (let attempt = 1; attempt < 20 && anotherSchemaVanished(outcome.error, schema); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    outcome = await migrator.migrateToLatest();
  }
  const { error, results } = outcome;
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}
