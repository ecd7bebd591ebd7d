import { describe, expect, it } from 'vitest';
import type { Address } from '../../src/chain/types.js';
import { type Wallet, WalletStore } from '../../src/stores/walletStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedUser, useTestDatabase } from './storeFixtures.js';

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Address;

describe.each(testDatabases)('wallet store ($name)', (database) => {
  const db = useTestDatabase(database);
  const wallet = (
    n: number,
    userUuid: number,
    kind: Wallet['kind'],
    salt: bigint,
    createdAt: number,
  ): Wallet => ({
    address: address(n),
    userUuid,
    kind,
    salt,
    initialOwner: address(0xabc),
    owner: address(0xabc),
    deployed: false,
    createdAt,
  });

  it('keeps main and slot content wallets of a user apart, with salts beyond 2^64 exact', async () => {
    await seedUser(db(), 20);
    const store = new WalletStore(db());
    const main = wallet(1, 20, 'main', 0n, 1);
    const content = wallet(2, 20, 'slot', 2n ** 200n + 7n, 2);
    await store.insert(main);
    await store.insert(content);
    expect(await store.mainWallet(20)).toEqual(main);
    expect(await store.findByAddress(content.address)).toEqual(content);
    expect((await store.listForUser(20)).map((w) => w.address)).toEqual([main.address, content.address]);
    expect(await store.mainWallet(21)).toBeUndefined();
  });

  it('marks one wallet deployed and moves the owner of every wallet of the user', async () => {
    await seedUser(db(), 22);
    await seedUser(db(), 23);
    const store = new WalletStore(db());
    await store.insert(wallet(3, 22, 'main', 0n, 1));
    await store.insert(wallet(4, 22, 'slot', 1n, 2));
    await store.insert(wallet(5, 23, 'main', 0n, 1));
    await store.markDeployed(address(3));
    await store.setOwnerForUser(22, address(0xdef));
    const mine = await store.listForUser(22);
    expect(mine.map((w) => [w.deployed, w.owner, w.initialOwner])).toEqual([
      [true, address(0xdef), address(0xabc)],
      [false, address(0xdef), address(0xabc)],
    ]);
    expect((await store.mainWallet(23))?.owner).toBe(address(0xabc));
  });

  it('refuses a second wallet at the same user, initial owner and salt (a transaction leaves nothing behind)', async () => {
    await seedUser(db(), 24);
    const store = new WalletStore(db());
    await store.insert(wallet(6, 24, 'main', 0n, 1));
    await expect(
      db()
        .transaction()
        .execute(async (trx) => {
          await store.insert(wallet(7, 24, 'slot', 9n, 2), trx);
          await store.insert(wallet(8, 24, 'slot', 0n, 3), trx);
        }),
    ).rejects.toThrow();
    expect((await store.listForUser(24)).map((w) => w.address)).toEqual([address(6)]);
  });
});
