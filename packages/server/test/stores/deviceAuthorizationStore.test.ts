import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { ClientStore } from '../../src/stores/clientStore.js';
import {
  type DeviceAuthorizationRecord,
  DeviceAuthorizationStore,
} from '../../src/stores/deviceAuthorizationStore.js';
import { type CodeRecord, type GrantRecord, OAuthGrantStore } from '../../src/stores/oauthGrantStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { WebhookOutbox, WebhookStore } from '../../src/stores/webhookStore.js';
import { testDatabases } from '../helpers/databases.js';

const DAY = 24 * 3600_000;

describe.each(testDatabases)('device authorization store ($name)', (database) => {
  let db: Db;
  let dispose: () => Promise<void>;
  let store: DeviceAuthorizationStore;
  const userUuid = 5151;
  const clientId = 'device-store-client';
  let codes = 0;

  beforeAll(async () => {
    const opened = await database.open();
    db = opened.handle.db;
    dispose = opened.dispose;
    store = new DeviceAuthorizationStore(db);
    await new UserStore(db).insert({
      userUuid,
      email: 'device-store@example.com',
      nickname: 'd',
      createdAt: 1,
      passwordHash: 'x',
    });
    await new ClientStore(db).insert({
      clientId,
      ownerUuid: userUuid,
      name: 'n',
      redirectUris: ['https://a.example/cb'],
      dapp: false,
      secretHash: 'h',
      createdAt: 1,
      postLogoutRedirectUris: [],
    });
  });
  afterAll(() => dispose?.());

  const request = (overrides: Partial<DeviceAuthorizationRecord> = {}): DeviceAuthorizationRecord => ({
    deviceCodeHash: randomUUID(),
    userCode: `BCDF${String(codes++).padStart(4, '0')}`,
    clientId,
    scope: 'openid',
    codeHash: randomUUID(),
    createdAt: 1_000,
    expiresAt: 601_000,
    intervalSeconds: 5,
    lastPolledAt: null,
    status: 'pending',
    userUuid: null,
    decidedAt: null,
    ...overrides,
  });
  const grantFor = (r: DeviceAuthorizationRecord, now: number): { grant: GrantRecord; code: CodeRecord } => {
    const grantId = randomUUID();
    return {
      grant: { grantId, clientId, userUuid, createdAt: now, revokedAt: null, revokedReason: null },
      code: {
        codeHash: r.codeHash,
        grantId,
        clientId,
        userUuid,
        redirectUri: 'urn:ietf:params:oauth:grant-type:device_code',
        codeChallenge: null,
        codeChallengeMethod: null,
        createdAt: now,
        expiresAt: now + 600_000,
        usedAt: null,
      },
    };
  };

  it('stores a request once per user code and finds it only while pending and unexpired', async () => {
    const first = request();
    expect(await store.insert(first)).toBe(true);
    // The same user code again: refused, nothing overwritten.
    expect(await store.insert(request({ userCode: first.userCode }))).toBe(false);
    expect(await store.findByDeviceCode(first.deviceCodeHash)).toEqual(first);
    expect((await store.findPending(first.userCode, 2_000))?.deviceCodeHash).toBe(first.deviceCodeHash);
    expect(await store.findPending(first.userCode, 601_000)).toBeUndefined();
  });

  it('approves exactly once, with the grant and its code in the same commit, and never after expiry', async () => {
    const r = request();
    await store.insert(r);
    const { grant, code } = grantFor(r, 5_000);
    const results = await Promise.all([
      store.approve(r.deviceCodeHash, 5_000, grant, code),
      store.approve(
        r.deviceCodeHash,
        5_000,
        { ...grant, grantId: randomUUID() },
        { ...code, grantId: 'other' },
      ),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const stored = await store.findByDeviceCode(r.deviceCodeHash);
    expect(stored).toMatchObject({ status: 'approved', userUuid, decidedAt: 5_000 });
    const grants = new OAuthGrantStore(db);
    expect((await grants.findCode(r.codeHash))?.grantId).toBe(grant.grantId);
    expect(await grants.findGrant(grant.grantId)).toBeDefined();
    // A denial after the approval changes nothing.
    expect(await store.deny(r.deviceCodeHash, userUuid, 6_000)).toBe(false);

    const late = request();
    await store.insert(late);
    const lateGrant = grantFor(late, 601_000);
    expect(await store.approve(late.deviceCodeHash, 601_000, lateGrant.grant, lateGrant.code)).toBe(false);
    expect(await grants.findCode(late.codeHash)).toBeUndefined();
    expect(await grants.findGrant(lateGrant.grant.grantId)).toBeUndefined();
  });

  it('an approval reports its grant (grant.created) in its own commit; a refused approval reports nothing', async () => {
    const hooks = new WebhookStore(db);
    await hooks.insertEndpoint({
      id: `wh_${randomUUID()}`,
      clientId,
      url: 'https://hooks.example/device',
      events: ['grant.created'],
      secretSealed: 'sealed',
      previousSecretSealed: undefined,
      previousSecretExpiresAt: undefined,
      failingSince: undefined,
      createdAt: 1,
    });
    const reporting = new DeviceAuthorizationStore(db, new WebhookOutbox());
    const r = request();
    await reporting.insert(r);
    const { grant, code } = grantFor(r, 5_000);
    expect(await reporting.approve(r.deviceCodeHash, 5_000, grant, code)).toBe(true);
    const again = grantFor(r, 5_001);
    expect(await reporting.approve(r.deviceCodeHash, 5_001, again.grant, again.code)).toBe(false);
    const reported = await db
      .selectFrom('webhook_deliveries')
      .select(['type', 'payload'])
      .where('type', '=', 'grant.created')
      .execute();
    const grantIds = reported.map(
      (row) => (JSON.parse(row.payload) as { data: { grant_id: string } }).data.grant_id,
    );
    expect(grantIds).toContain(grant.grantId);
    expect(grantIds).not.toContain(again.grant.grantId);
  });

  it('denies a pending request once; an approval after it opens nothing', async () => {
    const r = request();
    await store.insert(r);
    expect(await store.deny(r.deviceCodeHash, userUuid, 3_000)).toBe(true);
    expect(await store.deny(r.deviceCodeHash, userUuid, 3_000)).toBe(false);
    const { grant, code } = grantFor(r, 4_000);
    expect(await store.approve(r.deviceCodeHash, 4_000, grant, code)).toBe(false);
    expect(await store.findByDeviceCode(r.deviceCodeHash)).toMatchObject({ status: 'denied', userUuid });
  });

  it('records polls: on time after the interval; too early the interval grows by the slow-down step', async () => {
    const r = request({ intervalSeconds: 5 });
    await store.insert(r);
    expect(await store.recordPoll(r.deviceCodeHash, 10_000, 5)).toBe(true);
    expect(await store.recordPoll(r.deviceCodeHash, 14_999, 5)).toBe(false);
    expect(await store.findByDeviceCode(r.deviceCodeHash)).toMatchObject({
      intervalSeconds: 10,
      lastPolledAt: 14_999,
    });
    // Now 10 s from the too-early poll: 9.999 s is still too early, 10 s is on time.
    expect(await store.recordPoll(r.deviceCodeHash, 24_998, 5)).toBe(false);
    expect((await store.findByDeviceCode(r.deviceCodeHash))?.intervalSeconds).toBe(15);
    expect(await store.recordPoll(r.deviceCodeHash, 24_998 + 15_000, 5)).toBe(true);
  });

  it('purges requests a day after their expiry', async () => {
    const old = request({ expiresAt: 1_000 });
    const fresh = request({ expiresAt: DAY + 10_000 });
    await store.insert(old);
    await store.insert(fresh);
    await store.purgeExpired(DAY + 2_000);
    expect(await store.findByDeviceCode(old.deviceCodeHash)).toBeUndefined();
    expect(await store.findByDeviceCode(fresh.deviceCodeHash)).toBeDefined();
  });
});
