import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createPgSchema } from '../helpers/databases.js';
import { postgresAvailable, TEST_DATABASE_URL } from '../helpers/environment.js';

/**
 * Kysely's migration check scans every schema of the database; a schema dropped by another process during
 * that scan failed the migration with 3F000 `schema "t_…" does not exist`, and a column dropped with 42703
 * `column "…" of relation "…" does not exist` (parallel suites failed so in CI). Migrations now run beside
 * schemas that come and go.
 */
/** Columns the churn drops one by one, each drop a moment when a scan may see a column that is gone. */
const COLUMNS = Array.from({ length: 60 }, (_, i) => `c${i}`);

describe.skipIf(!postgresAvailable)('migrations beside schemas another process drops', () => {
  it('migrate fresh schemas while others are created and dropped', async () => {
    const churn = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await churn.connect();
    let stop = false;
    const churning = (async () => {
      while (!stop) {
        const name = `t_churn_${randomBytes(5).toString('hex')}`;
        // Tables make the catalog scan see the schema's rows before the drop removes them; a column
        // dropped first is what another suite migrating down does (42703 under the scan, seen in CI).
        await churn.query(
          `create schema ${name}; create table ${name}.a (${COLUMNS.map((c) => `${c} int`).join(', ')});
           create table ${name}.b (y int)`,
        );
        for (const column of COLUMNS) await churn.query(`alter table ${name}.a drop column ${column}`);
        await churn.query(`drop schema ${name} cascade`);
        // A pause as long as a burst: the migrations' retries get through (as suites migrating beside
        // this one, two files at a time, must), and about half their first scans meet a burst.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    try {
      for (let i = 0; i < 12; i++) {
        const schema = await createPgSchema();
        const handle = openDatabase({ databaseUrl: TEST_DATABASE_URL, pgSchema: schema.schema, poolSize: 2 });
        try {
          await migrateToLatest(handle.db);
          const users = await sql<{ n: string }>`select count(*) as n from information_schema.tables
            where table_schema = ${schema.schema} and table_name = 'users'`.execute(handle.db);
          expect(Number(users.rows[0]!.n)).toBe(1);
        } finally {
          await handle.close();
          await schema.drop();
        }
      }
    } finally {
      stop = true;
      await churning;
      await churn.end();
    }
  }, 120_000);
});
