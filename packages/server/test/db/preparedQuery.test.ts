import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { prepareQuery } from '../../src/db/preparedQuery.js';
import { type TestDatabase, testDatabases } from '../helpers/databases.js';
import { seedUser } from '../stores/storeFixtures.js';

/** SQLite with every statement through Kysely's driver (as when tracing is on): no native handle. */
const tracedSqlite: TestDatabase = {
  name: 'sqlite',
  async open() {
    const handle = openDatabase({ sqlitePath: ':memory:', traced: true });
    await migrateToLatest(handle.db);
    return { handle, dispose: () => handle.close() };
  },
};

const cases = [
  ...testDatabases.map((database) => ({ label: database.name, database })),
  { label: 'sqlite, traced', database: tracedSqlite },
];

describe.each(cases)('prepared queries ($label)', ({ database }) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
    for (const userUuid of [7001, 7002, 7003]) await seedUser(handle.db, userUuid);
  });
  afterAll(() => dispose());

  it('binds each run’s values in the places the builder put them, constants as given', async () => {
    // The arguments are used in another order than given, and a constant sits between them.
    const query = prepareQuery(handle.db, (d, lowest: number, email: string) =>
      d
        .selectFrom('users')
        .select(['user_uuid', 'email'])
        .where('email', '<>', email)
        .where('deleted_at', 'is', null)
        .where('user_uuid', '>=', lowest)
        .where('nickname', '<>', 'nobody')
        .orderBy('user_uuid'),
    );
    const first = await query.run(7002, 'user-7003@example.com');
    expect(first.rows.map((r) => Number(r.user_uuid))).toEqual([7002]);
    const second = await query.run(7001, 'user-7001@example.com');
    expect(second.rows.map((r) => Number(r.user_uuid))).toEqual([7002, 7003]);
    expect(second.affected).toBe(0);
  });

  it('answers a write’s affected rows, and its RETURNING rows', async () => {
    const rename = prepareQuery(handle.db, (d, nickname: string, userUuid: number) =>
      d.updateTable('users').set({ nickname }).where('user_uuid', '=', userUuid),
    );
    expect(await rename.run('renamed', 7001)).toEqual({ rows: [], affected: 1 });
    expect(await rename.run('renamed', 1)).toEqual({ rows: [], affected: 0 });
    const renameReturning = prepareQuery(handle.db, (d, nickname: string, userUuid: number) =>
      d.updateTable('users').set({ nickname }).where('user_uuid', '=', userUuid).returning('nickname'),
    );
    expect((await renameReturning.run('again', 7002)).rows).toEqual([{ nickname: 'again' }]);
  });

  it('refuses a builder whose values are not plain parameters (they would be bound as undefined)', () => {
    expect(() =>
      prepareQuery(handle.db, (d, ...values: number[]) =>
        d.selectFrom('users').select('nickname').where('user_uuid', '=', values[0]!),
      ),
    ).toThrow(/plain parameter/);
  });

  it('never runs inside a transaction another caller holds open', async () => {
    const nicknameOf = prepareQuery(handle.db, (d, userUuid: number) =>
      d.selectFrom('users').select('nickname').where('user_uuid', '=', userUuid),
    );
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const transaction = handle.db
      .transaction()
      .execute(async (trx) => {
        await sql`update users set nickname = 'uncommitted' where user_uuid = 7003`.execute(trx);
        entered();
        await held;
        throw new Error('rolled back');
      })
      .catch((error: Error) => error.message);
    await inside;
    const read = nicknameOf.run(7003);
    release();
    expect(await transaction).toBe('rolled back');
    // Had it run natively inside the open transaction (SQLite's one connection), it would have read the
    // uncommitted name; it waited for the connection instead (on PostgreSQL it reads the committed row).
    expect((await read).rows[0]?.nickname).not.toBe('uncommitted');
  });
});
