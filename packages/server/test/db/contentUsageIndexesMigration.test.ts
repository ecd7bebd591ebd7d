import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo } from '../../src/db/migrate.js';
import { ContentLedgerStore } from '../../src/stores/contentLedgerStore.js';
import { openEmptyDatabase } from '../helpers/databases.js';
import { postgresAvailable } from '../helpers/environment.js';

const BEFORE = '0300_user_locale';
const INDEXES = '0310_content_usage_indexes';
const slot = '0x00000000000000000000000000000000000000aA' as const;

/**
 * Migration 0310 (partial `content_usage` indexes, docs/performance-content.md round 3) on a database made
 * before it: the queue and the request keys read as before, a request key still counts once per client,
 * records without one never collide, and `down` restores the full indexes.
 */
describe.each([false, true].filter((pg) => !pg || postgresAvailable))(
  'migration 0310 content_usage indexes (postgres: %s)',
  (postgres) => {
    it('keeps the queue order and request-key uniqueness, and goes down again', async () => {
      const { handle, dispose } = await openEmptyDatabase(postgres);
      try {
        expect((await migrateTo(handle.db, BEFORE)).error).toBeUndefined();
        const ledger = new ContentLedgerStore(handle.db);
        await ledger.insertBalance('game', slot, { balance: 100n, used: 0n, block: 10n });
        const usage = (requestKey?: string) => ({
          clientId: 'client-1',
          cuid: 'game',
          slot,
          slotId: '1000000000000000001',
          amount: 1n,
          requestKey,
        });
        const before = await ledger.reserveMany([usage('k1'), usage(), usage()], 1_000);
        const unkeyed = before[1]!;
        const sent = unkeyed.kind === 'accepted' ? unkeyed.record.id : '';
        await ledger.openBatch([sent], 10n);

        const { error, results } = await migrateTo(handle.db, INDEXES);
        expect(error).toBeUndefined();
        expect(results?.map((r) => [r.migrationName, r.status])).toEqual([[INDEXES, 'Success']]);

        const after = await ledger.reserveMany([usage('k1'), usage('k2'), usage(), usage()], 2_000);
        expect(after.map((r) => r.kind)).toEqual(['duplicate', 'accepted', 'accepted', 'accepted']);
        // Oldest first, the record sent in a batch no longer queued.
        const queued = await ledger.listQueued(10);
        expect(queued.map((r) => r.acceptedAt)).toEqual([1_000, 1_000, 2_000, 2_000, 2_000]);
        expect(queued.map((r) => r.id)).not.toContain(sent);
        expect(await ledger.countByState('queued')).toBe(5);
        expect((await ledger.findByRequestKey('client-1', 'k1'))?.acceptedAt).toBe(1_000);
        // The unique index still refuses a stored key written past the ledger's own check.
        await expect(
          sql`insert into content_usage (id, client_id, cuid, slot, slot_id, amount, request_key, state, accepted_at, updated_at)
            values ('x', 'client-1', 'game', ${slot}, '1', '1', 'k2', 'queued', 3000, 3000)`.execute(
            handle.db,
          ),
        ).rejects.toThrow();

        expect((await migrateTo(handle.db, BEFORE)).error).toBeUndefined();
        expect(await ledger.countByState('queued')).toBe(5);
        expect((await ledger.reserveMany([usage('k2')], 3_000))[0]?.kind).toBe('duplicate');
      } finally {
        await dispose();
      }
    }, 120_000);
  },
);
