import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { sponsorshipObserver } from '../../src/composition/observability.js';
import { down, up } from '../../src/db/migrations/0140_email_verification.js';
import { ServiceMetrics } from '../../src/observability/metrics.js';
import { SponsorshipStore } from '../../src/stores/sponsorshipStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { testDatabases } from '../helpers/databases.js';
import { useTestDatabase } from './storeFixtures.js';

const platform = (budget: number) => ({ scope: 'platform' as const, subject: '*', budget });

describe.each(testDatabases)('platform sponsorship and verified sign-up storage ($name)', (database) => {
  const db = useTestDatabase(database);

  it('charges the platform row with the user and app in one transaction, and names the budget that refused', async () => {
    const store = new SponsorshipStore(db());
    const day = '2026-11-20';
    const user = { scope: 'user' as const, subject: 'u1', budget: 10_000 };
    const app = { scope: 'app' as const, subject: 'a1', budget: 10_000 };
    expect(await store.chargeAll(day, 600, [platform(1_000), user, app])).toBeUndefined();
    // The platform has 400 left: refused, and neither the user nor the app is charged.
    expect(await store.chargeAll(day, 600, [platform(1_000), user, app])).toEqual(platform(1_000));
    expect(await store.subjectOn(day, 'user', 'u1')).toEqual({ gas: 600, operations: 1, refused: 0 });
    expect(await store.subjectOn(day, 'platform', '*')).toEqual({ gas: 600, operations: 1, refused: 0 });
    // The user's own budget refuses first when the platform has room.
    const small = { ...user, budget: 1_000 };
    expect(await store.chargeAll(day, 300, [platform(2_000), small, app])).toBeUndefined();
    expect(await store.chargeAll(day, 300, [platform(2_000), small, app])).toEqual(small);
    // The report of users and apps leaves the platform row out.
    expect((await store.spendOn(day)).map((r) => r.scope).sort()).toEqual(['app', 'user']);
  });

  it('tells only the first refusal of a day, however many replicas count at once', async () => {
    const store = new SponsorshipStore(db());
    const day = '2026-11-21';
    const firsts = await Promise.all(
      Array.from({ length: 8 }, () => store.recordRefusal(day, 'platform', '*')),
    );
    expect(firsts.filter(Boolean)).toHaveLength(1);
    expect(await store.recordRefusal(day, 'platform', '*')).toBe(false);
    expect(await store.subjectOn(day, 'platform', '*')).toEqual({ gas: 0, operations: 0, refused: 9 });
    expect(await store.recordRefusal('2026-11-22', 'platform', '*')).toBe(true);
  });

  it('migration 0140: accounts made before it count as verified, new ones start unverified', async () => {
    const handle = db();
    await down(handle as never);
    await sql`insert into users (user_uuid, email, password_hash, nickname, created_at)
              values (1000000001, 'old@example.com', 'x', 'old', 1700000000000)`.execute(handle);
    await up(handle as never);
    const users = new UserStore(handle);
    expect(await users.emailVerified(1000000001)).toBe(true);
    const row = await handle
      .selectFrom('users')
      .select('email_verified_at')
      .where('user_uuid', '=', 1000000001)
      .executeTakeFirstOrThrow();
    expect(Number(row.email_verified_at)).toBe(1700000000000);

    await users.insert({
      userUuid: 1000000002,
      email: 'new@example.com',
      nickname: 'new',
      createdAt: Date.now(),
      passwordHash: 'x',
    });
    expect(await users.emailVerified(1000000002)).toBe(false);
    expect(await users.markEmailVerified(1000000002, Date.now())).toBe(true);
    expect(await users.markEmailVerified(1000000002, Date.now())).toBe(false);
    expect(await users.emailVerified(1000000002)).toBe(true);
  });
});

describe('sponsorship observer', () => {
  it('counts every refusal by limit and logs the platform cap once per crossing', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const metrics = new ServiceMetrics();
    const observer = sponsorshipObserver(metrics, pino(sink), 1_500_000);
    observer.refused('platform_daily_budget', { day: '2026-11-26', firstOfDay: true });
    observer.refused('platform_daily_budget', { day: '2026-11-26', firstOfDay: false });
    observer.refused('daily_budget', { day: '2026-11-26', firstOfDay: true });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      day: '2026-11-26',
      platformDailyGas: 1_500_000,
      msg: expect.stringMatching(/^platform sponsorship cap reached/),
    });
    const text = (await metrics.render()).body;
    expect(text).toMatch(/^dauth_sponsorship_refused_total\{limit="platform_daily_budget"\} 2$/m);
    expect(text).toMatch(/^dauth_sponsorship_refused_total\{limit="daily_budget"\} 1$/m);
  });
});
