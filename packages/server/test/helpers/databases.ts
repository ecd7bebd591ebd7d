import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { postgresAvailable, TEST_DATABASE_URL } from './environment.js';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** Opens a fresh, migrated database; for PostgreSQL a schema of its own, dropped on `dispose`. */
  open(): Promise<{ handle: DatabaseHandle; pgSchema?: string; dispose(): Promise<void> }>;
}

const sqlite: TestDatabase = {
  name: 'sqlite',
  async open() {
    const opened = await openEmptyDatabase(false);
    await migrateToLatest(opened.handle.db);
    return opened;
  },
};

export async function createPgSchema(): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  return {
    schema,
    drop: async () => {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

const postgres: TestDatabase = {
  name: 'postgres',
  async open() {
    const opened = await openEmptyDatabase(true, 5);
    await migrateToLatest(opened.handle.db);
    return opened;
  },
};

/**
 * A database with no migration run, for a migration's own test (which takes it to the migration before,
 * writes rows, then migrates): in-memory SQLite, or a PostgreSQL schema of its own dropped on `dispose`.
 */
export async function openEmptyDatabase(
  postgres: boolean,
  poolSize = 2,
): Promise<{ handle: DatabaseHandle; pgSchema?: string; dispose(): Promise<void> }> {
  if (!postgres) {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    return { handle, dispose: () => handle.close() };
  }
  const { schema, drop } = await createPgSchema();
  const handle = openDatabase({ databaseUrl: TEST_DATABASE_URL, pgSchema: schema, poolSize });
  return {
    handle,
    pgSchema: schema,
    dispose: async () => {
      await handle.close();
      await drop();
    },
  };
}

/** Every store suite runs once per database: `describe.each(testDatabases)(…)`. */
export const testDatabases: TestDatabase[] = postgresAvailable ? [sqlite, postgres] : [sqlite];
