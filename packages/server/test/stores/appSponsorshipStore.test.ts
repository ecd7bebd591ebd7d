import { describe, expect, it } from 'vitest';
import { AppSponsorshipStore } from '../../src/stores/appSponsorshipStore.js';
import { SponsorshipStore } from '../../src/stores/sponsorshipStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

const platform = { scope: 'platform' as const, subject: '*', budget: 1_000_000_000 };

describe.each(testDatabases)('per-app sponsorship storage ($name)', (database) => {
  const db = useTestDatabase(database);

  it('keeps one policy per app, replaced whole, a null budget read back as none', async () => {
    const store = new AppSponsorshipStore(db());
    expect(await store.find('app-1')).toBeUndefined();
    await store.put({
      clientId: 'app-1',
      dailyGasPerPlayer: 9_007_199_254_740_991,
      dailyGasPerGuest: 100_000,
      dailyGasApp: undefined,
      opsPerPlayerPerMinute: 3,
      approvalUrl: 'https://studio.example/approve',
      approvalSecretSealed: 'v1.sealed',
      approvalFailOpen: true,
      updatedAt: 1_700_000_000_000,
    });
    expect(await store.find('app-1')).toEqual({
      clientId: 'app-1',
      dailyGasPerPlayer: 9_007_199_254_740_991,
      dailyGasPerGuest: 100_000,
      dailyGasApp: undefined,
      opsPerPlayerPerMinute: 3,
      approvalUrl: 'https://studio.example/approve',
      approvalSecretSealed: 'v1.sealed',
      approvalFailOpen: true,
      updatedAt: 1_700_000_000_000,
    });
    await store.put({
      clientId: 'app-1',
      dailyGasPerPlayer: undefined,
      dailyGasPerGuest: undefined,
      dailyGasApp: 5_000,
      opsPerPlayerPerMinute: undefined,
      approvalUrl: undefined,
      approvalSecretSealed: undefined,
      approvalFailOpen: false,
      updatedAt: 1_700_000_000_001,
    });
    const replaced = await store.find('app-1');
    expect(replaced?.dailyGasApp).toBe(5_000);
    expect(replaced?.dailyGasPerPlayer).toBeUndefined();
    expect(replaced?.approvalUrl).toBeUndefined();
    expect(replaced?.approvalFailOpen).toBe(false);
    expect(await store.remove('app-1')).toBe(true);
    expect(await store.find('app-1')).toBeUndefined();
  });

  it('charges counts (amount 1) beside gas, gives a reservation back, and lists an app’s rows', async () => {
    const spend = new SponsorshipStore(db());
    const day = '2026-11-23';
    const rate = { scope: 'rate' as const, subject: 'app-2:7:10:15', budget: 2, amount: 1 };
    const player = { scope: 'player' as const, subject: 'app-2:7', budget: 10_000 };
    const hour = { scope: 'hour' as const, subject: 'app-2:10', budget: Number.MAX_SAFE_INTEGER };
    expect(await spend.chargeAll(day, 4_000, [platform, player, rate, hour])).toBeUndefined();
    expect(await spend.chargeAll(day, 4_000, [platform, player, rate, hour])).toBeUndefined();
    // The third operation of the minute: refused by the count (the player has 2,000 gas left).
    expect(await spend.chargeAll(day, 1_000, [platform, player, rate, hour])).toEqual(rate);
    expect(await spend.subjectOn(day, 'rate', 'app-2:7:10:15')).toEqual({
      gas: 2,
      operations: 2,
      refused: 0,
    });
    expect(await spend.subjectOn(day, 'player', 'app-2:7')).toEqual({
      gas: 8_000,
      operations: 2,
      refused: 0,
    });
    // The second operation was not sent after all: every row it charged is given back.
    await spend.release(day, 4_000, [platform, player, rate, hour]);
    expect(await spend.subjectOn(day, 'player', 'app-2:7')).toEqual({
      gas: 4_000,
      operations: 1,
      refused: 0,
    });
    expect(await spend.subjectOn(day, 'rate', 'app-2:7:10:15')).toEqual({
      gas: 1,
      operations: 1,
      refused: 0,
    });
    expect(await spend.subjectOn(day, 'platform', '*')).toEqual({ gas: 4_000, operations: 1, refused: 0 });
    await spend.chargeAll(day, 300, [{ scope: 'player', subject: 'app-2:8', budget: 10_000 }]);
    await spend.chargeAll(day, 300, [{ scope: 'player', subject: 'app-20:9', budget: 10_000 }]);
    expect(await spend.appRowsOn(day, 'player', 'app-2', 10)).toEqual([
      { key: '7', gas: 4_000, operations: 1 },
      { key: '8', gas: 300, operations: 1 },
    ]);
    expect(await spend.appRowsOn(day, 'hour', 'app-2', 24)).toEqual([
      { key: '10', gas: 4_000, operations: 1 },
    ]);
    // The admin's report lists users and apps only.
    expect((await spend.spendOn(day)).map((r) => r.scope)).toEqual([]);
  });

  it('never lets two replicas together spend more than an app budget', async () => {
    // Two stores stand for two replicas (on PostgreSQL, separate pooled connections); 40 operations of
    // 1,000 gas race for an app budget of 25,000 and a player budget of 30,000.
    const replicas = [new SponsorshipStore(db()), new SponsorshipStore(db())];
    const day = '2026-11-24';
    const app = { scope: 'app' as const, subject: 'app-3', budget: 25_000 };
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        replicas[i % 2]!.chargeAll(day, 1_000, [
          platform,
          app,
          { scope: 'player', subject: `app-3:${i % 4}`, budget: 30_000 },
        ]),
      ),
    );
    expect(answers.filter((a) => a === undefined)).toHaveLength(25);
    expect(answers.filter((a) => a !== undefined).every((a) => a?.subject === 'app-3')).toBe(true);
    expect(await replicas[0]!.subjectOn(day, 'app', 'app-3')).toEqual({
      gas: 25_000,
      operations: 25,
      refused: 0,
    });
    const firsts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => replicas[i % 2]!.recordRefusal(day, 'exhaust', 'app-3')),
    );
    expect(firsts.filter(Boolean)).toHaveLength(1);
  });
});
