import { type AnvilInstance, CANONICAL_ENTRY_POINT, entryPointAbi, startAnvil } from '@dauth/contracts';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { call, newUser, registerPin } from '../../pin/pinHelpers.js';
import { freshKeys, randomOwner } from '../chainTestHelpers.js';
import { type AltoOnAnvil, stakePaymaster, startAltoOn } from './alto.js';

/**
 * The whole service with BUNDLER_RPC_URL on a chain that mines every 2 seconds (a public L2's pace), with
 * CHAIN_CONFIRMATIONS 2: sign-up, PIN registration (the wallet's first, deploying operation) and a token
 * transfer, every user operation through Alto, each answered once its bundle is two blocks deep.
 */
describe('the service through Alto on a 2-second chain (BUNDLER_RPC_URL, CHAIN_CONFIRMATIONS=2)', () => {
  let node: AnvilInstance;
  let alto: AltoOnAnvil;
  let server: TestServer;

  beforeAll(async () => {
    node = await startAnvil({ args: ['--block-time', '2'] });
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: http(node.rpcUrl),
    });
    const mined = async (hash: `0x${string}`) =>
      reader.waitForTransactionReceipt({ hash, pollingInterval: 250 });
    const keys = freshKeys();
    // Sent one after another (each takes the next pending nonce), mined together in the next block.
    const fundings: `0x${string}`[] = [];
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
      fundings.push(
        await bank.sendTransaction({
          chain: null,
          to: privateKeyToAccount(key).address,
          value: parseEther('100'),
        }),
      );
    }
    for (const hash of fundings) await mined(hash);
    // The canonical EntryPoint is there before Alto comes, as on a public network.
    alto = await startAltoOn({ rpcUrl: node.rpcUrl, extraArgs: ['--block-time', '2000'] });
    server = await startTestServer({
      env: { CHAIN_RPC_URL: node.rpcUrl, BUNDLER_RPC_URL: alto.url, CHAIN_CONFIRMATIONS: '2', ...keys },
    });
    const { contracts } = server.services.chain.info;
    expect(contracts.entry_point).toBe(CANONICAL_ENTRY_POINT);
    await mined(
      await bank.writeContract({
        chain: null,
        address: contracts.entry_point,
        abi: entryPointAbi,
        functionName: 'depositTo',
        args: [contracts.paymaster],
        value: parseEther('10'),
      }),
    );
    await stakePaymaster({
      rpcUrl: node.rpcUrl,
      deployerKey: keys.DEPLOYER_PRIVATE_KEY,
      paymaster: contracts.paymaster,
    });
  }, 180_000);

  afterAll(async () => {
    await server?.close();
    await alto?.stop();
    await node?.stop();
  });

  it('signs up, registers a PIN and transfers, the user operations through Alto, answered two blocks deep', async () => {
    const reader = createPublicClient({ transport: http(node.rpcUrl) });
    const token = server.services.chain.info.contracts.token;
    const user = await newUser(server, 'alto');
    const wallet = await registerPin(server, user, '424242');
    const funded = await call(
      server,
      '/v1/admin/faucet',
      { address: wallet.address, token: '1000000' },
      server.services.secrets.adminApiKey,
    );
    expect(funded.status).toBe(200);
    const recipient = getAddress(`0x${'ce'.repeat(20)}`);
    const res = await call<Record<string, string>>(
      server,
      '/v1/token/transfer',
      {
        from_address: wallet.address,
        to_address: recipient,
        amount: '2500',
        contract_address: token,
        ...wallet.pin,
        key_share_user: wallet.key_share_user,
      },
      user.token,
    );
    expect(res.status).toBe(200);
    const head = await reader.getBlockNumber({ cacheTime: 0 });
    const hash = res.body.transaction_hash as `0x${string}`;
    const [receipt, tx] = await Promise.all([
      reader.getTransactionReceipt({ hash }),
      reader.getTransaction({ hash }),
    ]);
    expect(receipt.status).toBe('success');
    expect(await reader.getCode({ address: wallet.address })).toBeDefined();
    // Alto's executor sent the bundle; the answer came once it was two blocks deep.
    expect(tx.from.toLowerCase()).toBe(alto.executors[0]!.toLowerCase());
    expect(head).toBeGreaterThanOrEqual(receipt.blockNumber + 1n);
    expect(
      await reader.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [recipient],
      }),
    ).toBe(2500n);
  }, 120_000);

  it('reports the bundler in /readyz, degraded while it does not answer; operations then answer 503, nothing sent', async () => {
    const readyz = async () => {
      const response = await fetch(`${server.url}/readyz`, {
        headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
      });
      return {
        status: response.status,
        body: (await response.json()) as { status: string; checks: Record<string, string> },
      };
    };
    expect((await readyz()).body.checks.bundler).toBe('ok');
    await alto.stop();
    const down = await readyz();
    expect(down.status).toBe(200);
    expect(down.body.status).toBe('degraded');
    expect(down.body.checks.bundler).toBe('the bundler at BUNDLER_RPC_URL does not answer');
    const { chain } = server.services;
    const owner = randomOwner();
    await expect(
      chain.operations.submitOperation({
        owner,
        salt: 0n,
        calls: [chain.calls.nativeTransfer(owner.address, 0n)],
      }),
    ).rejects.toMatchObject({ status: 503, code: 'chain_unavailable' });
    expect(await chain.gateway.isDeployed(chain.gateway.walletAddress(owner.address, 0n))).toBe(false);
  }, 60_000);
});
