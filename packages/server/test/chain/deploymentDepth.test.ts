import { type AnvilInstance, startAnvil } from '@dauth/contracts';
import { type Address, createPublicClient, type Hash, createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../src/chain/devAccounts.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const BLOCK_SECONDS = 3;
const CONFIRMATIONS = 3;

/**
 * Issue 29, decisions §8 ("CHAIN_CONFIRMATIONS sets how deep a write must be before it is answered as
 * done"): the deployment at a first start is a write too. The service records and uses it only once the
 * deployer's last transaction is CHAIN_CONFIRMATIONS blocks deep, so a reorg of the last blocks cannot
 * leave it running against contracts the chain no longer holds.
 */
describe(`a fresh deployment on a ${BLOCK_SECONDS}-second chain with CHAIN_CONFIRMATIONS=${CONFIRMATIONS}`, () => {
  let node: AnvilInstance;
  let server: TestServer;
  const deployerKey = generatePrivateKey();
  const deployer = privateKeyToAccount(deployerKey).address;

  beforeAll(async () => {
    node = await startAnvil({ args: ['--block-time', String(BLOCK_SECONDS)] });
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: http(node.rpcUrl),
    });
    const keys = {
      DEPLOYER_PRIVATE_KEY: deployerKey,
      RELAYER_PRIVATE_KEY: generatePrivateKey(),
      PAYMASTER_SIGNER_PRIVATE_KEY: generatePrivateKey(),
      OPERATOR_OWNER_PRIVATE_KEY: generatePrivateKey(),
    };
    // Both sent before either is mined (the bank's pending nonce counts the first): one block, not two.
    const fundings: Hash[] = [];
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
      fundings.push(
        await bank.sendTransaction({
          chain: null,
          to: privateKeyToAccount(key).address,
          value: parseEther('100'),
        }),
      );
    }
    await Promise.all(fundings.map((hash) => reader.waitForTransactionReceipt({ hash })));
    server = await startTestServer({
      env: { CHAIN_RPC_URL: node.rpcUrl, CHAIN_CONFIRMATIONS: String(CONFIRMATIONS), ...keys },
    });
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    await node?.stop();
  });

  it('is in use only once the block of the deployer’s last transaction is deep enough', async () => {
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    // The chain head when the start finished (read before anything else can mine).
    const headAtStart = await reader.getBlockNumber({ cacheTime: 0 });
    const deployerBlocks: bigint[] = [];
    const creationBlocks = new Set<bigint>();
    let creations = 0;
    for (let n = 0n; n <= headAtStart; n++) {
      const block = await reader.getBlock({ blockNumber: n, includeTransactions: true });
      const own = block.transactions.filter(
        (tx) => (tx.from as Address).toLowerCase() === deployer.toLowerCase(),
      );
      if (own.length === 0) continue;
      deployerBlocks.push(n);
      const created = own.filter((tx) => tx.to === null).length;
      creations += created;
      if (created > 0) creationBlocks.add(n);
    }
    const lastDeployerBlock = deployerBlocks.at(-1) ?? -1n;
    expect(lastDeployerBlock).toBeGreaterThan(0n);
    // The five creations (factory, paymaster, dex, content token, ERC-20; the canonical EntryPoint is placed
    // through the deployment proxy) go out together: one block, two when a block is mined while they are sent
    // (one each, five, when each was mined before the next was sent). With the EntryPoint placement before
    // them and the deposit and the operator's funding after: at most 5 blocks of the deployer's (8 before).
    expect(creations).toBe(5);
    expect(creationBlocks.size).toBeLessThanOrEqual(2);
    expect(deployerBlocks.length).toBeLessThanOrEqual(5);
    expect(headAtStart).toBeGreaterThanOrEqual(lastDeployerBlock + BigInt(CONFIRMATIONS - 1));
    // And the deployment it uses is there.
    const code = await reader.getCode({ address: server.services.chain.info.contracts.dex });
    expect(code && code.length > 2).toBe(true);
  });
});
