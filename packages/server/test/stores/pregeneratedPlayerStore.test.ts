import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Address } from '../../src/chain/types.js';
import {
  type NewPregeneratedPlayer,
  PregeneratedPlayerStore,
} from '../../src/stores/pregeneratedPlayerStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import { WalletStore } from '../../src/stores/walletStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

function player(overrides: Partial<NewPregeneratedPlayer> = {}): NewPregeneratedPlayer {
  const userUuid = randomInt(1_000_000_000, 2 ** 47);
  const address = `0x${randomBytes(20).toString('hex')}` as Address;
  return {
    userUuid,
    nickname: 'player',
    orgId: 'org_test',
    clientId: 'app',
    email: `pre${userUuid}@example.com`,
    wallet: {
      address,
      userUuid,
      kind: 'main',
      salt: 0n,
      initialOwner: address,
      owner: address,
      deployed: false,
      createdAt: 5,
    },
    mnemonicSealed: 'v1.sealed',
    identity: null,
    createdAt: 5,
    ...overrides,
  };
}

describe.each(testDatabases)('pre-generated player store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('creates the account without e-mail or password, its wallet, and answers exists/taken after', async () => {
    const store = new PregeneratedPlayerStore(db());
    const p = player();
    expect(await store.create(p)).toBe('created');
    const user = await new UserStore(db()).findById(p.userUuid);
    expect(user).toMatchObject({ email: null, passwordHash: '', nickname: 'player' });
    expect((await new WalletStore(db()).mainWallet(p.userUuid))?.address).toBe(p.wallet.address);
    expect(await store.findByEmail(p.email!)).toMatchObject({ userUuid: p.userUuid, claimedAt: undefined });
    expect(await store.sealedMnemonic(p.userUuid)).toBe('v1.sealed');
    expect(await store.create(player({ email: p.email }))).toBe('exists');

    const holder = randomInt(1_000_000_000, 2 ** 47);
    await seedUser(db(), holder, `taken${holder}@example.com`);
    expect(await store.create(player({ email: `taken${holder}@example.com` }))).toBe('taken');
  });

  it('links a platform identity at once, and refuses one linked to an account already', async () => {
    const store = new PregeneratedPlayerStore(db());
    const subject = String(randomInt(1, 2 ** 47));
    const p = player({ email: null });
    p.identity = {
      id: randomUUID(),
      provider: 'steam',
      subject,
      userUuid: p.userUuid,
      email: null,
      emailVerified: false,
      displayName: null,
      createdAt: 5,
      lastUsedAt: undefined,
    };
    expect(await store.create(p)).toBe('created');
    expect(await store.findByPlatform('steam', subject)).toMatchObject({
      userUuid: p.userUuid,
      platform: { provider: 'steam', subject },
    });
    expect(await store.signInState(p.userUuid)).toBe('unclaimed');
    expect(await store.markClaimed(p.userUuid, 9)).toBe(true);
    expect(await store.markClaimed(p.userUuid, 10)).toBe(false);
    expect(await store.signInState(p.userUuid)).toBe('claimed');
    const again = player({ email: null, identity: { ...p.identity, id: randomUUID() } });
    again.identity!.userUuid = again.userUuid;
    expect(await store.create(again)).toBe('exists');
  });

  it('gives a sign-up the waiting account once, which awaits the mailbox proof until verified', async () => {
    const store = new PregeneratedPlayerStore(db());
    const p = player();
    await store.create(p);
    expect(await store.signInState(p.userUuid)).toBe('awaiting_proof');
    expect(await store.claimForSignup(p.email!, { passwordHash: 'hash', nickname: 'nick' })).toBe(p.userUuid);
    expect(await store.claimForSignup(p.email!, { passwordHash: 'other', nickname: 'x' })).toBeUndefined();
    expect(await new UserStore(db()).findById(p.userUuid)).toMatchObject({
      email: p.email,
      passwordHash: 'hash',
      nickname: 'nick',
    });
    expect(await store.signInState(p.userUuid)).toBe('awaiting_proof');
    await new UserStore(db()).markEmailVerified(p.userUuid, 7);
    expect(await store.signInState(p.userUuid)).toBe('unclaimed');
    await store.dropMnemonic(p.userUuid);
    expect(await store.sealedMnemonic(p.userUuid)).toBeUndefined();
    expect(
      await store.claimForSignup('nobody@example.com', { passwordHash: 'h', nickname: 'n' }),
    ).toBeUndefined();
  });
});
