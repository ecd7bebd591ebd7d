import { type AnvilInstance, startAnvil } from '@dauth/contracts';
import { type Address, createPublicClient, createWalletClient, http, parseEther } from 'viem';
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
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
      const funding = await bank.sendTransaction({
        chain: null,
        to: privateKeyToAccount(key).address,
        value: parseEther('100'),
      });
      await reader.waitForTransactionReceipt({ hash: funding });
    }
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
    let lastDeployerBlock = -1n;
    for (let n = 0n; n <= headAtStart; n++) {
      const block = await reader.getBlock({ blockNumber: n, includeTransactions: true });
      if (block.transactions.some((tx) => (tx.from as Address).toLowerCase() === deployer.toLowerCase())) {
        lastDeployerBlock = n;
      }
    }
    expect(lastDeployerBlock).toBeGreaterThan(0n);
    expect(headAtStart).toBeGreaterThanOrEqual(lastDeployerBlock + BigInt(CONFIRMATIONS - 1));
    // And the deployment it uses is there.
    const code = await reader.getCode({ address: server.services.chain.info.contracts.dex });
    expect(code && code.length > 2).toBe(true);
  });
});
