import { describe, expect, it } from 'vitest';
import { checksumAddress } from '../../src/chain/address.js';
import { SessionKeyStore, type WalletPolicy } from '../../src/stores/sessionKeyStore.js';
import { WebhookOutbox, WebhookStore } from '../../src/stores/webhookStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedUser, useTestDatabase } from './storeFixtures.js';

const policy: WalletPolicy = {
  calls: [{ to: '0x00000000000000000000000000000000000000aa', selectors: ['0xa9059cbb'] }],
  max_value_per_call_wei: '0',
  max_value_per_day_wei: '0',
  token_limits: [{ token: '0x00000000000000000000000000000000000000aa', per_day: '300' }],
  valid_for_seconds: 3600,
};
const WALLET = '0x00000000000000000000000000000000000000Bb';
const ACCOUNT = '0x00000000000000000000000000000000000000cC';

describe.each(testDatabases)('session key store ($name)', (database) => {
  const db = useTestDatabase(database);
  const key = (keyAddress: string, userUuid: number, clientId: string, createdAt = 5) => ({
    keyAddress,
    userUuid,
    clientId,
    walletAddress: WALLET,
    accountAddress: ACCOUNT,
    keySealed: 'v1.sealed',
    policy,
    validUntil: 1_900_000_000,
    createdAt,
  });

  it('stores, replaces and deletes an app’s wallet policy', async () => {
    const store = new SessionKeyStore(db());
    expect(await store.findPolicy('app-p')).toBeUndefined();
    await store.putPolicy('app-p', policy, 10);
    await store.putPolicy('app-p', { ...policy, valid_for_seconds: 60 }, 11);
    expect(await store.findPolicy('app-p')).toEqual({
      clientId: 'app-p',
      policy: { ...policy, valid_for_seconds: 60 },
      updatedAt: 11,
    });
    expect(await store.deletePolicy('app-p')).toBe(true);
    expect(await store.deletePolicy('app-p')).toBe(false);
  });

  it('records a session account as intent first, then active; lookups ignore address case', async () => {
    await seedUser(db(), 5001);
    const store = new SessionKeyStore(db());
    await store.recordPendingAccount(WALLET, 5001, '0x00000000000000000000000000000000000000dd', 1);
    // A pending intent is replaced (the owner key changed, so did the address); an active one stays.
    await store.recordPendingAccount(WALLET, 5001, ACCOUNT, 2);
    expect(await store.findAccount(WALLET.toUpperCase().replace('0X', '0x'))).toMatchObject({
      accountAddress: ACCOUNT.toLowerCase(),
      state: 'pending',
    });
    await store.activateAccount(WALLET, '0xabc');
    await store.recordPendingAccount(WALLET, 5001, '0x00000000000000000000000000000000000000ee', 3);
    expect(await store.findAccountByAddress(ACCOUNT)).toMatchObject({
      state: 'active',
      txHash: '0xabc',
      userUuid: 5001,
    });
  });

  it('activates a key with its granted event and the replaced key’s revoked event in one transaction', async () => {
    await seedUser(db(), 5002);
    const outbox = new WebhookOutbox();
    await new WebhookStore(db()).insertEndpoint({
      id: 'wh_sk',
      clientId: 'app-k',
      url: 'https://hooks.example/sk',
      events: ['session_key.granted', 'session_key.revoked'],
      secretSealed: 'sealed',
      previousSecretSealed: undefined,
      previousSecretExpiresAt: undefined,
      failingSince: undefined,
      createdAt: 1,
    });
    const store = new SessionKeyStore(db(), outbox, checksumAddress);
    await store.insertPendingKey(key('0x00000000000000000000000000000000000000a1', 5002, 'app-k', 5));
    await store.activateKey('0x00000000000000000000000000000000000000a1', '0xt1', 6);
    await store.insertPendingKey(key('0x00000000000000000000000000000000000000a2', 5002, 'app-k', 7));
    await store.activateKey('0x00000000000000000000000000000000000000a2', '0xt2', 8, [
      '0x00000000000000000000000000000000000000a1',
    ]);
    expect((await store.keysOf(5002, 'app-k', ['active'])).map((k) => k.keyAddress)).toEqual([
      '0x00000000000000000000000000000000000000a2',
    ]);
    expect(await store.findKey('0x00000000000000000000000000000000000000a1')).toMatchObject({
      state: 'revoked',
      revokeReason: 'replaced',
      revokeTxHash: '0xt2',
    });
    const deliveries = await db()
      .selectFrom('webhook_deliveries')
      .select(['type', 'payload'])
      .where('client_id', '=', 'app-k')
      .orderBy('msg_id')
      .execute();
    expect(deliveries.map((d) => d.type)).toEqual([
      'session_key.granted',
      'session_key.granted',
      'session_key.revoked',
    ]);
    expect(JSON.parse(deliveries[2]!.payload).data).toEqual({
      client_id: 'app-k',
      user_uuid: '5002',
      session_key: '0x00000000000000000000000000000000000000A1',
      valid_until: new Date(1_900_000_000_000).toISOString(),
      tx_hash: '0xt2',
    });
    // A failed registration drops the sealed key.
    await store.insertPendingKey(key('0x00000000000000000000000000000000000000a3', 5002, 'app-k'));
    await store.failKey('0x00000000000000000000000000000000000000a3');
    expect(await store.findKey('0x00000000000000000000000000000000000000a3')).toMatchObject({
      state: 'failed',
      keySealed: '',
    });
  });

  it('finds the keys to revoke: marked ones and active ones whose app grant ended', async () => {
    await seedUser(db(), 5003);
    for (const app of ['app-live', 'app-gone', 'app-mark']) await seedClient(db(), app, 5003);
    const store = new SessionKeyStore(db());
    const grant = (grantId: string, clientId: string, revokedAt: number | null) =>
      db()
        .insertInto('oauth_grants')
        .values({
          grant_id: grantId,
          client_id: clientId,
          user_uuid: 5003,
          created_at: 1,
          revoked_at: revokedAt,
          revoked_reason: revokedAt ? 'user' : null,
          scope: null,
          auth_time: null,
        })
        .execute();
    await grant('g-live', 'app-live', null);
    await grant('g-gone', 'app-gone', 5);
    for (const [k, app] of [
      ['0x00000000000000000000000000000000000000b1', 'app-live'],
      ['0x00000000000000000000000000000000000000b2', 'app-gone'],
      ['0x00000000000000000000000000000000000000b3', 'app-mark'],
    ] as const) {
      await store.insertPendingKey(key(k, 5003, app));
      await store.activateKey(k, '0xt', 1);
    }
    await grant('g-mark', 'app-mark', null);
    expect((await store.markRevoking(5003, 'app-mark', 'revoked_by_user')).map((k) => k.keyAddress)).toEqual([
      '0x00000000000000000000000000000000000000b3',
    ]);
    const due = (await store.keysToRevoke()).filter((k) => k.userUuid === 5003);
    expect(due.map((k) => k.keyAddress).sort()).toEqual([
      '0x00000000000000000000000000000000000000b2',
      '0x00000000000000000000000000000000000000b3',
    ]);
    expect(
      await store.markRevoked('0x00000000000000000000000000000000000000b2', '0xr', 'grant_ended', 9),
    ).toBe(true);
    expect(
      await store.markRevoked('0x00000000000000000000000000000000000000b2', '0xr', 'grant_ended', 9),
    ).toBe(false);
    expect(await store.findKey('0x00000000000000000000000000000000000000b3')).toMatchObject({
      state: 'revoking',
    });
    expect((await store.activeKeysOfUser(5003)).map((k) => k.clientId)).toEqual(['app-live']);
  });
});
