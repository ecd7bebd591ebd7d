import {
  type AnvilInstance,
  CANONICAL_ENTRY_POINT,
  CANONICAL_ENTRY_POINT_CODE_HASH,
  canonicalEntryPointDeployData,
  deployDauthContracts,
  DETERMINISTIC_DEPLOYER,
  deterministicEntryPointAddress,
  entryPointAbi,
  startAnvil,
} from '@dauth/contracts';
import {
  createPublicClient,
  createWalletClient,
  getContractAddress,
  type Hex,
  http,
  keccak256,
  parseEther,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import { SettingsDeploymentRecordStore } from '../../../src/chain/deploymentRecord.js';
import { operatorWalletOf } from '../../../src/chain/ensureDeployment.js';
import { type DatabaseHandle, openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { freshKeys, randomOwner, startTestChain, type TestChain } from '../chainTestHelpers.js';

/** Issue 29, decisions §8: the canonical EntryPoint v0.6 where it exists, and placed there where it can be. */
describe('canonical EntryPoint v0.6 at 0x5FF137D4…2789', () => {
  it('is the address the deterministic deployment proxy gives the published 0.6.0 creation code (salt 0)', () => {
    expect(deterministicEntryPointAddress()).toBe('0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789');
    expect(CANONICAL_ENTRY_POINT).toBe(deterministicEntryPointAddress());
  });

  describe('embedded chain', () => {
    let t: TestChain;
    beforeAll(async () => {
      t = await startTestChain();
    });
    afterAll(() => t?.close());

    it('places the EntryPoint at the canonical address, with the code public networks hold there', async () => {
      const { contracts } = t.chain.info;
      expect(contracts.entry_point).toBe(CANONICAL_ENTRY_POINT);
      const code = await t.chain.gateway.client.getCode({ address: CANONICAL_ENTRY_POINT });
      // The runtime code hash of mainnet's, OP Stack's and Arbitrum's EntryPoint v0.6.
      expect(keccak256(code!)).toBe('0xc93c806e738300b5357ecdc2e971d6438d34d8e4e17b99b758b1f9cac91c8e70');
      expect(CANONICAL_ENTRY_POINT_CODE_HASH).toBe(keccak256(code!));
      // The paymaster's deposit is at the canonical EntryPoint, and the wallets' factory points at it.
      const deposit = await t.chain.gateway.client.readContract({
        address: CANONICAL_ENTRY_POINT,
        abi: entryPointAbi,
        functionName: 'balanceOf',
        args: [contracts.paymaster],
      });
      expect(deposit).toBe(parseEther('1000'));
    });

    it('runs a deploying and a later operation of a wallet through it', async () => {
      const owner = randomOwner();
      const first = await t.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [t.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      const later = await t.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [t.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      expect([first.success, first.nonce, later.success, later.nonce]).toEqual([true, 0n, true, 1n]);
      const receipt = await t.chain.gateway.client.getTransactionReceipt({ hash: later.txHash });
      expect(receipt.to?.toLowerCase()).toBe(CANONICAL_ENTRY_POINT.toLowerCase());
    });
  });

  describe('external chain', () => {
    let database: DatabaseHandle;
    const nodes: AnvilInstance[] = [];
    beforeAll(async () => {
      database = openDatabase({ sqlitePath: ':memory:' });
      await migrateToLatest(database.db);
    });
    afterAll(async () => {
      await Promise.all(nodes.map((n) => n.stop()));
      await database?.close();
    });

    async function node(args: string[] = []) {
      const started = await startAnvil({ chainId: 1337, args });
      nodes.push(started);
      const bank = createWalletClient({
        account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
        transport: http(started.rpcUrl),
      });
      const reader = createPublicClient({ transport: http(started.rpcUrl) });
      const keys = freshKeys();
      for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
        await bank.sendTransaction({
          chain: null,
          to: privateKeyToAccount(key).address,
          value: parseEther('100'),
        });
      }
      const deposit = async (entryPoint: Hex, paymaster: Hex) =>
        reader.waitForTransactionReceipt({
          hash: await bank.writeContract({
            chain: null,
            address: entryPoint,
            abi: entryPointAbi,
            functionName: 'depositTo',
            args: [paymaster],
            value: parseEther('1'),
          }),
        });
      return { rpcUrl: started.rpcUrl, bank, reader, keys, deposit };
    }

    async function operationWorks(t: TestChain): Promise<void> {
      const owner = randomOwner();
      const result = await t.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [t.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      expect(result.success).toBe(true);
    }

    it('uses the canonical EntryPoint someone else placed, and spends no transaction of its own on it', async () => {
      const n = await node();
      // A public network: the EntryPoint is there before dauth comes.
      await n.reader.waitForTransactionReceipt({
        hash: await n.bank.sendTransaction({
          chain: null,
          to: DETERMINISTIC_DEPLOYER,
          data: canonicalEntryPointDeployData(),
        }),
      });
      const own = openDatabase({ sqlitePath: ':memory:' });
      await migrateToLatest(own.db);
      const t = await startTestChain({ database: own, env: { CHAIN_RPC_URL: n.rpcUrl, ...n.keys } });
      try {
        const { contracts } = t.chain.info;
        expect(contracts.entry_point).toBe(CANONICAL_ENTRY_POINT);
        // The deployer's first transaction created the factory: none went to an EntryPoint.
        const deployer = privateKeyToAccount(n.keys.DEPLOYER_PRIVATE_KEY).address;
        expect(contracts.account_factory).toBe(getContractAddress({ from: deployer, nonce: 0n }));
        await n.deposit(contracts.entry_point, contracts.paymaster);
        await operationWorks(t);
      } finally {
        await t.close();
        await own.close();
      }
    });

    it('deploys its own EntryPoint where the chain has no deterministic deployment proxy, and it works', async () => {
      const n = await node(['--disable-default-create2-deployer']);
      expect(await n.reader.getCode({ address: DETERMINISTIC_DEPLOYER })).toBeUndefined();
      const t = await startTestChain({ database, env: { CHAIN_RPC_URL: n.rpcUrl, ...n.keys } });
      try {
        const { contracts } = t.chain.info;
        const deployer = privateKeyToAccount(n.keys.DEPLOYER_PRIVATE_KEY).address;
        expect(contracts.entry_point).toBe(getContractAddress({ from: deployer, nonce: 0n }));
        expect(await n.reader.getCode({ address: CANONICAL_ENTRY_POINT })).toBeUndefined();
        await n.deposit(contracts.entry_point, contracts.paymaster);
        await operationWorks(t);
      } finally {
        await t.close();
      }
    });

    it('deploys its own EntryPoint when other code sits at the canonical address', async () => {
      const n = await node();
      await n.reader.request({
        method: 'anvil_setCode' as never,
        params: [CANONICAL_ENTRY_POINT, '0x6000'] as never,
      });
      const own = openDatabase({ sqlitePath: ':memory:' });
      await migrateToLatest(own.db);
      const t = await startTestChain({ database: own, env: { CHAIN_RPC_URL: n.rpcUrl, ...n.keys } });
      try {
        const deployer = privateKeyToAccount(n.keys.DEPLOYER_PRIVATE_KEY).address;
        expect(t.chain.info.contracts.entry_point).toBe(getContractAddress({ from: deployer, nonce: 0n }));
      } finally {
        await t.close();
        await own.close();
      }
    });

    it('keeps a deployment recorded before the canonical EntryPoint was used (its own EntryPoint)', async () => {
      const n = await node();
      const deployerAccount = privateKeyToAccount(n.keys.DEPLOYER_PRIVATE_KEY);
      // What an earlier version deployed and recorded: every contract by the deployer, the EntryPoint too.
      const old = await deployDauthContracts({
        walletClient: createWalletClient({
          account: deployerAccount,
          transport: http(n.rpcUrl),
        }),
        publicClient: n.reader as never,
        platformSigner: privateKeyToAccount(n.keys.PAYMASTER_SIGNER_PRIVATE_KEY).address,
        paymasterDeposit: parseEther('1'),
      });
      expect(old.entry_point).toBe(getContractAddress({ from: deployerAccount.address, nonce: 0n }));
      const own = openDatabase({ sqlitePath: ':memory:' });
      await migrateToLatest(own.db);
      const client = createPublicClient({ transport: http(n.rpcUrl) });
      const { operatorWallet } = await operatorWalletOf(
        client as never,
        old.account_factory,
        privateKeyToAccount(n.keys.OPERATOR_OWNER_PRIVATE_KEY).address,
      );
      await new SettingsDeploymentRecordStore(own.db).save({
        chainId: 1337,
        contracts: old,
        operatorWallet,
        deployedAt: new Date().toISOString(),
      });
      const t = await startTestChain({ database: own, env: { CHAIN_RPC_URL: n.rpcUrl, ...n.keys } });
      try {
        expect(t.chain.info.contracts).toEqual(old);
        // Nothing was placed at the canonical address for it: the recorded set stays as it is.
        expect(await n.reader.getCode({ address: CANONICAL_ENTRY_POINT })).toBeUndefined();
        await operationWorks(t);
      } finally {
        await t.close();
        await own.close();
      }
    });
  });
});
