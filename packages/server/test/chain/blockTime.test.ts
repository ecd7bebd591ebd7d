import { type AnvilInstance, entryPointAbi, startAnvil } from '@dauth/contracts';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  http,
  parseEther,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../src/chain/devAccounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { call, newUser, registerPin } from '../pin/pinHelpers.js';
import { contractSettings, freshKeys, randomOwner, startTestChain } from './chainTestHelpers.js';

/**
 * An external node that mines a block every 2 seconds (a public L2's pace, not anvil's instant mining):
 * every answer waits for its block, none for a fixed sleep, and operations sent while a block is pending
 * share one bundle.
 */
describe('external chain with a 2-second block time (anvil --block-time 2)', () => {
  let node: AnvilInstance;
  let server: TestServer;
  let keys: ReturnType<typeof freshKeys>;
  let bank: ReturnType<typeof bankOf>;

  beforeAll(async () => {
    // Chain id 31337: the admin faucet exists (dev chain), mining is not instant.
    node = await startAnvil({ args: ['--block-time', '2'] });
    keys = freshKeys();
    bank = bankOf(node.rpcUrl);
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
      const funding = await bank.sendTransaction({
        chain: null,
        to: privateKeyToAccount(key).address,
        value: parseEther('100'),
      });
      // Mined only at the next 2-second block: the deployment must not start before the funds are there.
      await reader.waitForTransactionReceipt({ hash: funding });
    }
    server = await startTestServer({ env: { CHAIN_RPC_URL: node.rpcUrl, ...keys } });
    const deposit = await bank.writeContract({
      chain: null,
      address: server.services.chain.info.contracts.entry_point,
      abi: entryPointAbi,
      functionName: 'depositTo',
      args: [server.services.chain.info.contracts.paymaster],
      value: parseEther('10'),
    });
    await reader.waitForTransactionReceipt({ hash: deposit });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    await node?.stop();
  });

  it('signs up, registers a PIN, funds and transfers, each answer after its block', async () => {
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const token = server.services.chain.info.contracts.token;
    const user = await newUser(server, 'blocks');
    const wallet = await registerPin(server, user, '808080');
    const funded = await call(
      server,
      '/v1/admin/faucet',
      { address: wallet.address, token: '1000000' },
      server.services.secrets.adminApiKey,
    );
    expect(funded.status).toBe(200);
    const recipient = getAddress(`0x${'cd'.repeat(20)}`);
    const started = Date.now();
    const res = await call<Record<string, string>>(
      server,
      '/v1/token/transfer',
      {
        from_address: wallet.address,
        to_address: recipient,
        amount: '1500',
        contract_address: token,
        ...wallet.pin,
        key_share_user: wallet.key_share_user,
      },
      user.token,
    );
    expect(res.status).toBe(200);
    // Answered as done only once mined: the balance is there at once, in a block of the 2-second cadence.
    const balanceOf = (address: Address) =>
      reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
    expect(await balanceOf(recipient)).toBe(1500n);
    const receipt = await reader.getTransactionReceipt({ hash: res.body.transaction_hash as `0x${string}` });
    expect(receipt.status).toBe('success');
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 120_000);

  it('puts operations sent while a block is pending into one bundle', async () => {
    const { chain } = server.services;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => {
        const owner = randomOwner();
        return chain.operations.submitOperation({
          owner,
          salt: 0n,
          calls: [chain.calls.nativeTransfer(owner.address, 0n)],
        });
      }),
    );
    expect(results.every((r) => r.success)).toBe(true);
    const hashes = new Set(results.map((r) => r.txHash));
    // Five operations, at most two bundles (one may already be pending when the rest arrive).
    expect(hashes.size).toBeLessThanOrEqual(2);
  }, 60_000);

  it('answers a write only once it is CHAIN_CONFIRMATIONS blocks deep', async () => {
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    // A second service on the same contracts with its own relayer (no shared nonces) and 3 confirmations.
    const relayerKey = generatePrivateKey();
    await reader.waitForTransactionReceipt({
      hash: await bank.sendTransaction({
        chain: null,
        to: privateKeyToAccount(relayerKey).address,
        value: parseEther('10'),
      }),
    });
    const deep = await startTestChain({
      env: {
        CHAIN_RPC_URL: node.rpcUrl,
        CHAIN_CONFIRMATIONS: '3',
        RELAYER_PRIVATE_KEY: relayerKey,
        PAYMASTER_SIGNER_PRIVATE_KEY: keys.PAYMASTER_SIGNER_PRIVATE_KEY,
        OPERATOR_OWNER_PRIVATE_KEY: keys.OPERATOR_OWNER_PRIVATE_KEY,
        ...contractSettings(server.services.chain.info.contracts),
      },
    });
    try {
      const owner = randomOwner();
      const result = await deep.chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [deep.chain.calls.nativeTransfer(owner.address, 0n)],
      });
      const head = await reader.getBlockNumber({ cacheTime: 0 });
      const receipt = await reader.getTransactionReceipt({ hash: result.txHash });
      expect(result.success).toBe(true);
      // Its own block and two more on top when the answer came.
      expect(head).toBeGreaterThanOrEqual(receipt.blockNumber + 2n);
    } finally {
      await deep.close();
    }
  }, 90_000);
});

/** The node's first development account, which funds everything the test needs. */
function bankOf(rpcUrl: string) {
  return createWalletClient({ account: privateKeyToAccount(ANVIL_DEV_KEYS[0]), transport: http(rpcUrl) });
}
