import { describe, expect, it } from 'vitest';
import { ChainBeliefStore } from '../../src/stores/chainBeliefStore.js';
import { WalletStore } from '../../src/stores/walletStore.js';
import { testDatabases } from '../helpers/databases.js';
import { seedClient, seedSlot, seedUser, useTestDatabase } from './storeFixtures.js';

describe.each(testDatabases)('chain belief store ($name)', (database) => {
  const db = useTestDatabase(database);

  it('lists deployed wallets and active slots with their owner’s main wallet, bounded', async () => {
    await seedUser(db(), 801);
    await seedClient(db(), 'belief-app', 801);
    const wallets = new WalletStore(db());
    const main = `0x${'8a'.repeat(20)}` as const;
    await wallets.insert({
      address: main,
      userUuid: 801,
      kind: 'main',
      salt: 0n,
      initialOwner: `0x${'01'.repeat(20)}`,
      owner: `0x${'01'.repeat(20)}`,
      deployed: false,
      createdAt: 1,
    });
    const beliefs = new ChainBeliefStore(db());
    expect(await beliefs.deployedWallets(10)).toEqual([]);
    await wallets.markDeployed(main);
    expect(await beliefs.deployedWallets(10)).toEqual([{ address: main }]);
    expect(await beliefs.deployedWallets(0)).toEqual([]);

    const slot = await seedSlot(db(), 801, 'belief-app');
    const active = await beliefs.activeSlots(10);
    expect(active).toEqual([{ slotId: slot.id, ownerWallet: main }]);
    expect(await beliefs.settledContentBalances(10)).toEqual([]);
  });
});
