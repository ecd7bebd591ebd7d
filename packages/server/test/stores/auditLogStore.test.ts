import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { type AuditEntry, AuditLogStore } from '../../src/stores/auditLogStore.js';
import { testDatabases } from '../helpers/databases.js';

const entry = (overrides: Partial<AuditEntry>): AuditEntry => ({
  id: randomUUID(),
  at: 1_700_000_000_000,
  action: 'pin.verify',
  outcome: 'success',
  status: 200,
  errorCode: undefined,
  actorKind: 'user',
  actorUser: '42',
  clientId: undefined,
  address: '127.0.0.1',
  requestId: randomUUID(),
  details: { calls: [{ to: '0x' + 'ab'.repeat(20), value: '0' }] },
  ...overrides,
});

describe.each(testDatabases)('audit log store ($name)', (database) => {
  let handle: DatabaseHandle;
  let dispose: () => Promise<void>;
  let store: AuditLogStore;

  beforeAll(async () => {
    ({ handle, dispose } = await database.open());
    store = new AuditLogStore(handle.db);
    await store.append(entry({ at: 1000, action: 'account.login', actorUser: '7' }), 1);
    await store.append(entry({ at: 2000, action: 'pin.verify', outcome: 'denied', status: 401 }), 2);
    await store.append(entry({ at: 2000, action: 'pin.verify' }), 3);
    await store.append(entry({ at: 3000, action: 'token.transfer', clientId: 'app-1' }), 4);
  });
  afterAll(() => dispose());

  it('lists newest first, ordering entries of one millisecond by sequence, with their details', async () => {
    const rows = await store.list({ limit: 10 });
    expect(rows.map((r) => [r.at, r.seq])).toEqual([
      [3000, 4],
      [2000, 3],
      [2000, 2],
      [1000, 1],
    ]);
    expect(rows[1]!.details).toEqual({ calls: [{ to: '0x' + 'ab'.repeat(20), value: '0' }] });
    expect(rows[0]).toMatchObject({ clientId: 'app-1', errorCode: undefined, actorKind: 'user' });
  });

  it('filters by action, user, client, outcome and time, and pages strictly before a cursor', async () => {
    expect((await store.list({ limit: 10, action: 'pin.verify' })).map((r) => r.seq)).toEqual([3, 2]);
    expect((await store.list({ limit: 10, actorUser: '7' })).map((r) => r.action)).toEqual(['account.login']);
    expect((await store.list({ limit: 10, clientId: 'app-1' })).map((r) => r.seq)).toEqual([4]);
    expect((await store.list({ limit: 10, outcome: 'denied' })).map((r) => r.status)).toEqual([401]);
    expect((await store.list({ limit: 10, from: 2000, to: 2000 })).map((r) => r.seq)).toEqual([3, 2]);
    expect((await store.list({ limit: 10, before: { at: 2000, seq: 3 } })).map((r) => r.seq)).toEqual([2, 1]);
  });

  it('refuses UPDATE and DELETE: the trail is append-only', async () => {
    await expect(sql`update audit_log set status = 500`.execute(handle.db)).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_log where seq = 1`.execute(handle.db)).rejects.toThrow(/append-only/);
    expect(await store.list({ limit: 10 })).toHaveLength(4);
  });

  it('commits the entries of one turn together, and an entry that fails fails alone', async () => {
    const fresh = new AuditLogStore(handle.db);
    const taken = (await store.list({ limit: 1 }))[0]!.id;
    const turn = Array.from({ length: 20 }, () => entry({ at: 5000, action: 'batch.entry' }));
    const settled = await Promise.allSettled([
      ...turn.map((e, i) => fresh.append(e, 100 + i)),
      // Same id as an entry already written: the primary key refuses it, and only it.
      fresh.append(entry({ id: taken, at: 5000, action: 'batch.entry' }), 200),
    ]);
    expect(settled.slice(0, 20).every((s) => s.status === 'fulfilled')).toBe(true);
    expect(settled[20]!.status).toBe('rejected');
    const written = await store.list({ limit: 50, action: 'batch.entry' });
    expect(written.map((r) => r.id).sort()).toEqual(turn.map((e) => e.id).sort());
    // One batch tried first, failed on the duplicate, then every entry alone: 20 written, none twice.
    expect(fresh.appendStats()).toEqual({ batches: 0, entries: 0 });
    const next = Array.from({ length: 5 }, () => entry({ at: 6000, action: 'batch.second' }));
    await Promise.all(next.map((e, i) => fresh.append(e, 300 + i)));
    expect(fresh.appendStats()).toEqual({ batches: 1, entries: 5 });
    expect(await store.list({ limit: 10, action: 'batch.second' })).toHaveLength(5);
  });
});
