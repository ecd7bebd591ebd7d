import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, nativeSqlite, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { nativeTurnCommit } from '../../src/db/nativeTurnCommit.js';

describe('NativeTurnCommit (SQLite)', () => {
  let handle: DatabaseHandle;

  beforeAll(async () => {
    handle = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(handle.db);
    await sql`create table turn_rows (id text primary key)`.execute(handle.db);
  });
  afterAll(() => handle.close());

  const native = () => nativeSqlite(handle.db)!;
  const insertNow = (id: string) => native().prepare('insert into turn_rows (id) values (?)').run(id).changes;
  const insertWithKysely = async (id: string) =>
    Number((await sql`insert into turn_rows (id) values (${id})`.execute(handle.db)).numAffectedRows);
  const stored = async () =>
    (await sql<{ id: string }>`select id from turn_rows order by id`.execute(handle.db)).rows.map(
      (r) => r.id,
    );

  it('is one per database, and none where statements are traced', () => {
    expect(nativeTurnCommit(handle.db)).toBe(nativeTurnCommit(handle.db));
    const traced = openDatabase({ sqlitePath: ':memory:', traced: true });
    expect(nativeTurnCommit(traced.db)).toBeUndefined();
    return traced.close();
  });

  it('commits the writes of one turn, whatever store made them, in one transaction', async () => {
    const turns = nativeTurnCommit(handle.db)!;
    const before = turns.stats();
    const submit = (id: string) =>
      turns.submit(
        () => insertNow(id),
        () => insertWithKysely(id),
      );
    // Each write runs inside the turn's transaction: the native handle says so while it runs.
    const seen = turns.submit(
      () => native().inTransaction,
      () => false,
    );
    expect(await Promise.all([submit('a'), submit('b'), seen])).toEqual([1, 1, true]);
    expect(turns.stats()).toEqual({ batches: before.batches + 1, writes: before.writes + 3 });
    expect(native().inTransaction).toBe(false);
    expect(await stored()).toEqual(['a', 'b']);
  });

  it('retries a failed turn write by write: only the bad write fails, the rest commit', async () => {
    const turns = nativeTurnCommit(handle.db)!;
    const results = await Promise.allSettled(
      ['c', 'a', 'd'].map((id) =>
        turns.submit(
          () => insertNow(id),
          () => insertWithKysely(id),
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await stored()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('takes Kysely’s path while a Kysely transaction holds the connection, outside that transaction', async () => {
    const turns = nativeTurnCommit(handle.db)!;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inTransaction = new Promise<void>((resolve) => (started = resolve));
    const transaction = handle.db.transaction().execute(async (trx) => {
      await sql`insert into turn_rows (id) values ('rolled-back')`.execute(trx);
      started();
      await held;
      throw new Error('roll back');
    });
    await inTransaction;
    const paths: string[] = [];
    const waiting = turns.submit(
      () => {
        paths.push('native');
        return insertNow('e');
      },
      () => {
        paths.push('kysely');
        return insertWithKysely('e');
      },
    );
    // The turn flushes (setImmediate) while the transaction still holds the connection.
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await waiting).toBe(1);
    expect(paths).toEqual(['kysely']);
    expect(await stored()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
