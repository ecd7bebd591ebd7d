import { type AnvilInstance, entryPointAbi, startAnvil } from '@dauth/contracts';
import { createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS, isWellKnownDevKey } from '../../src/chain/devAccounts.js';
import { type DatabaseHandle, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { contractSettings, fundedKeys, randomOwner, startTestChain } from './chainTestHelpers.js';

/** An "external" node: anvil with chain id 1337, reached through CHAIN_RPC_URL like any other node. */
describe('external chain (CHAIN_RPC_URL, real anvil with chain id 1337)', () => {
  let node: AnvilInstance;
  let database: DatabaseHandle;
  beforeAll(async () => {
    node = await startAnvil({ chainId: 1337 });
    database = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(database.db);
  });
  afterAll(async () => {
    await node?.stop();
    await database?.close();
  });

  it('knows the well-known development keys', () => {
    expect(ANVIL_DEV_KEYS.every((k) => isWellKnownDevKey(k))).toBe(true);
    expect(isWellKnownDevKey(generatePrivateKey())).toBe(false);
  });

  it('refuses to start with well-known development keys on a chain other than 31337', async () => {
    const keys = await fundedKeys(node.rpcUrl);
    for (const name of [
      'RELAYER_PRIVATE_KEY',
      'PAYMASTER_SIGNER_PRIVATE_KEY',
      'OPERATOR_OWNER_PRIVATE_KEY',
      'DEPLOYER_PRIVATE_KEY',
    ]) {
      await expect(
        startTestChain({ database, env: { CHAIN_RPC_URL: node.rpcUrl, ...keys, [name]: ANVIL_DEV_KEYS[1] } }),
      ).rejects.toThrow(new RegExp(`Refusing to start: ${name} is a well-known development key`));
    }
    // Another replica's relayer key in the list is refused too, not only this replica's own.
    const { RELAYER_PRIVATE_KEY: own, ...others } = keys;
    await expect(
      startTestChain({
        database,
        env: {
          CHAIN_RPC_URL: node.rpcUrl,
          ...others,
          RELAYER_PRIVATE_KEYS: `${own},${ANVIL_DEV_KEYS[1]}`,
          REPLICA_ID: '0',
        },
      }),
    ).rejects.toThrow(/Refusing to start: RELAYER_PRIVATE_KEYS is a well-known development key/);
  });

  it('deploys once with DEPLOYER_PRIVATE_KEY, records it in platform_settings, and reuses it', async () => {
    const keys = await fundedKeys(node.rpcUrl);
    const env = { CHAIN_RPC_URL: node.rpcUrl, ...keys };
    const first = await startTestChain({ database, env });
    const { contracts } = first.chain.info;
    try {
      expect(first.chain.info).toMatchObject({ chainId: 1337, kind: 'external', rpcUrl: undefined });
      const row = await database.db
        .selectFrom('platform_settings')
        .selectAll()
        .where('key', '=', 'chain.deployment.1337')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.value)).toMatchObject({
        chainId: 1337,
        contracts,
        operatorWallet: first.chain.operator.address,
      });
      expect(await first.chain.gateway.read('dex', 'operator', [])).toBe(first.chain.operator.address);

      // No deposit was made on an external chain: sponsorship is unavailable until the platform funds it.
      const owner = randomOwner();
      const call = { owner, salt: 0n, calls: [first.chain.calls.nativeTransfer(owner.address, 0n)] };
      await expect(first.chain.operations.submitOperation(call)).rejects.toMatchObject({
        status: 503,
        code: 'sponsorship_unavailable',
      });
      const funder = createWalletClient({
        account: privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY),
        transport: http(node.rpcUrl),
      });
      await funder.writeContract({
        chain: null,
        address: contracts.entry_point,
        abi: entryPointAbi,
        functionName: 'depositTo',
        args: [contracts.paymaster],
        value: parseEther('1'),
      });
      expect(await first.chain.operations.submitOperation(call)).toMatchObject({ success: true });

      // The faucet exists on the development chain only.
      await expect(first.chain.faucet.fund({ address: owner.address, native: 1n })).rejects.toMatchObject({
        status: 403,
        code: 'faucet_unavailable',
      });
    } finally {
      await first.close();
    }

    const deployer = privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY).address;
    const deployerNonce = await first.chain.gateway.client.getTransactionCount({ address: deployer });
    const second = await startTestChain({ database, env });
    try {
      expect(second.chain.info.contracts).toEqual(contracts);
      expect(await second.chain.gateway.client.getTransactionCount({ address: deployer })).toBe(
        deployerNonce,
      );
    } finally {
      await second.close();
    }

    // Given CONTRACT_* addresses (and no deployer), the service uses them as they are.
    const { DEPLOYER_PRIVATE_KEY: _unused, ...withoutDeployer } = keys;
    const configured = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        ...withoutDeployer,
        ...contractSettings(contracts),
      },
    });
    try {
      expect(configured.chain.info.contracts).toEqual(contracts);
      const owner = randomOwner();
      const result = await configured.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [configured.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      expect(result.success).toBe(true);
    } finally {
      await configured.close();
    }
  });

  it('refuses recorded or configured contracts whose code is not this build, saying how to redeploy', async () => {
    const keys = await fundedKeys(node.rpcUrl);
    const own = openDatabase({ sqlitePath: ':memory:' });
    try {
      await migrateToLatest(own.db);
      const env = { CHAIN_RPC_URL: node.rpcUrl, ...keys };
      const first = await startTestChain({ database: own, env });
      const { contracts } = first.chain.info;
      await first.close();
      // The record names another contract (the ERC-20) as the dex: code, but not this build's.
      const row = await own.db
        .selectFrom('platform_settings')
        .select('value')
        .where('key', '=', 'chain.deployment.1337')
        .executeTakeFirstOrThrow();
      const record = JSON.parse(row.value) as { contracts: Record<string, string> };
      record.contracts.dex = contracts.token;
      await own.db
        .updateTable('platform_settings')
        .set({ value: JSON.stringify(record) })
        .where('key', '=', 'chain.deployment.1337')
        .execute();
      await expect(startTestChain({ database: own, env })).rejects.toThrow(
        new RegExp(
          `Refusing to start: DauthDex at ${contracts.token} runs other code .*` +
            "deleting the platform_settings row 'chain\\.deployment\\.<chainId>'.*DEPLOYER_PRIVATE_KEY",
        ),
      );
      const { DEPLOYER_PRIVATE_KEY: _unused, ...withoutDeployer } = keys;
      await expect(
        startTestChain({
          env: {
            CHAIN_RPC_URL: node.rpcUrl,
            ...withoutDeployer,
            // The content token named as the ERC-20: code, but not this build's.
            ...contractSettings({ ...contracts, content_token: contracts.token }),
          },
        }),
      ).rejects.toThrow(
        /DauthContentToken at .* runs other code .*set CONTRACT_DEX and CONTRACT_CONTENT_TOKEN/,
      );
    } finally {
      await own.close();
    }
  });

  it('fails to start with a clear message when the node does not answer', async () => {
    const keys = await fundedKeys(node.rpcUrl);
    await expect(startTestChain({ env: { CHAIN_RPC_URL: 'http://127.0.0.1:9', ...keys } })).rejects.toThrow(
      /does not answer/,
    );
  });
});
