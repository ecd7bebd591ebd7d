import {
  type AnvilInstance,
  CANONICAL_ENTRY_POINT,
  canonicalEntryPointDeployData,
  dauthPaymasterAbi,
  DETERMINISTIC_DEPLOYER,
  entryPointAbi,
  startAnvil,
} from '@dauth/contracts';
import { createPublicClient, createWalletClient, type Hex, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import { OPERATION_GAS } from '../../../src/chain/operations/operationSigner.js';
import { bundledOperations, randomOwner, startTestChain, type TestChain } from '../chainTestHelpers.js';
import { type AltoInstance, startAlto } from './alto.js';

/** Alto's own keys: it pays for the bundles it sends, from its executor account. */
const ALTO_EXECUTOR = generatePrivateKey();
const ALTO_UTILITY = generatePrivateKey();

/**
 * Issue 29: BUNDLER_RPC_URL sends user operations to an independent ERC-4337 bundler. Tested against Alto
 * (`@pimlico/alto`) on an anvil this test starts, with Alto's mempool checks on (see docs/operations.md,
 * "Which bundler", for why its safe mode cannot run on anvil).
 */
describe('external bundler (BUNDLER_RPC_URL) against Alto on anvil', () => {
  let node: AnvilInstance;
  let alto: AltoInstance;
  let t: TestChain;
  let relayer: Hex;

  beforeAll(async () => {
    node = await startAnvil();
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: http(node.rpcUrl),
    });
    // A public network: the canonical EntryPoint is there before either bundler comes.
    await reader.waitForTransactionReceipt({
      hash: await bank.sendTransaction({
        chain: null,
        to: DETERMINISTIC_DEPLOYER,
        data: canonicalEntryPointDeployData(),
      }),
    });
    const keys = {
      DEPLOYER_PRIVATE_KEY: generatePrivateKey(),
      RELAYER_PRIVATE_KEY: generatePrivateKey(),
      PAYMASTER_SIGNER_PRIVATE_KEY: generatePrivateKey(),
      OPERATOR_OWNER_PRIVATE_KEY: generatePrivateKey(),
    };
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY, ALTO_EXECUTOR, ALTO_UTILITY]) {
      await reader.waitForTransactionReceipt({
        hash: await bank.sendTransaction({
          chain: null,
          to: privateKeyToAccount(key).address,
          value: parseEther('100'),
        }),
      });
    }
    relayer = privateKeyToAccount(keys.RELAYER_PRIVATE_KEY).address;
    alto = await startAlto({
      rpcUrl: node.rpcUrl,
      entryPoint: CANONICAL_ENTRY_POINT,
      executorKey: ALTO_EXECUTOR,
      utilityKey: ALTO_UTILITY,
      safeMode: false,
    });
    t = await startTestChain({
      env: { CHAIN_RPC_URL: node.rpcUrl, BUNDLER_RPC_URL: alto.url, ...keys },
      externalBundler: { pollIntervalMs: { min: 50, max: 250 } },
    });
    const { contracts } = t.chain.info;
    // The paymaster's deposit, and its stake (ERC-7562 lets a staked paymaster read its own storage).
    const deployer = createWalletClient({
      account: privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY),
      transport: http(node.rpcUrl),
    });
    await reader.waitForTransactionReceipt({
      hash: await bank.writeContract({
        chain: null,
        address: contracts.entry_point,
        abi: entryPointAbi,
        functionName: 'depositTo',
        args: [contracts.paymaster],
        value: parseEther('10'),
      }),
    });
    await reader.waitForTransactionReceipt({
      hash: await deployer.writeContract({
        chain: null,
        address: contracts.paymaster,
        abi: dauthPaymasterAbi,
        functionName: 'addStake',
        args: [86_400],
        value: parseEther('1'),
      }),
    });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await alto?.stop();
    await node?.stop();
  });

  it('Alto accepts and includes a first (deploying) and a later operation of a dauth wallet', async () => {
    const owner = randomOwner();
    const wallet = t.chain.gateway.walletAddress(owner.address, 0n);
    const call = { owner, salt: 0n, calls: [t.chain.calls.nativeTransfer(owner.address, 0n)] };
    let first;
    try {
      first = await t.chain.operations.submitOperation(call);
    } catch (err) {
      throw new Error(`${(err as Error).message}\nalto: ${alto.output().slice(-4_000)}`, { cause: err });
    }
    expect(first).toMatchObject({ success: true, sender: wallet, nonce: 0n });
    expect(await t.chain.gateway.client.getCode({ address: wallet })).toBeDefined();
    const later = await t.chain.operations.submitOperation(call);
    expect(later).toMatchObject({ success: true, sender: wallet, nonce: 1n });

    for (const result of [first, later]) {
      // Alto's executor sent the bundle, not dauth's relayer.
      const tx = await t.chain.gateway.client.getTransaction({ hash: result.txHash });
      expect(tx.from.toLowerCase()).toBe(privateKeyToAccount(ALTO_EXECUTOR).address.toLowerCase());
      expect(tx.from.toLowerCase()).not.toBe(relayer.toLowerCase());
      expect(tx.to?.toLowerCase()).toBe(CANONICAL_ENTRY_POINT.toLowerCase());
    }
    // The gas fields are the bundler's estimate, not the built-in fixed ones, and the paymaster's signature
    // (checked by the EntryPoint on chain) covers them: the operation validated and ran.
    const [firstOp] = await bundledOperations(t.chain, first.txHash);
    const [laterOp] = await bundledOperations(t.chain, later.txHash);
    expect(firstOp!.initCode).not.toBe('0x');
    expect(laterOp!.initCode).toBe('0x');
    expect(firstOp!.verificationGasLimit).not.toBe(OPERATION_GAS.verificationGasLimitWithInitCode);
    expect(laterOp!.verificationGasLimit).not.toBe(OPERATION_GAS.verificationGasLimit);
  }, 120_000);

  it('keeps the platform operator wallet on the built-in bundler', async () => {
    const result = await t.chain.operator.execute([
      t.chain.calls.nativeTransfer(t.chain.operator.address, 0n),
    ]);
    expect(result.success).toBe(true);
    const tx = await t.chain.gateway.client.getTransaction({ hash: result.txHash });
    expect(tx.from.toLowerCase()).toBe(relayer.toLowerCase());
  }, 60_000);
});
