import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Migration, MigrationProvider } from 'kysely';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');

/**
 * The migrations of src/db/migrations, as the service reads them: for the tests that take a database to an
 * older schema (a Migrator's `migrateTo`) and bring it forward over rows made there.
 */
export const sourceMigrations: MigrationProvider = {
  async getMigrations() {
    const files = (await fs.readdir(migrationsDir)).filter((f) => /^\d{4}_[\w-]+\.ts$/.test(f)).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      migrations[file.replace(/\.ts$/, '')] = (await import(
        pathToFileURL(path.join(migrationsDir, file)).href
      )) as Migration;
    }
    return migrations;
  },
};
