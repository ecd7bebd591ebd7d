import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AnvilInstance,
  CANONICAL_ENTRY_POINT,
  canonicalEntryPointDeployData,
  dauthPaymasterAbi,
  DETERMINISTIC_DEPLOYER,
  entryPointAbi,
  getUserOpHash,
  startAnvil,
} from '@dauth/contracts';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  type Hex,
  http as httpTransport,
  parseEther,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ANVIL_DEV_KEYS } from '../../../src/chain/devAccounts.js';
import { operationFromRpc } from '../../../src/chain/operations/externalBundler.js';
import { UserOperationJournalStore } from '../../../src/stores/userOperationJournalStore.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { call, newUser, registerPin } from '../../pin/pinHelpers.js';
import { freshKeys, randomOwner } from '../chainTestHelpers.js';
import { type AltoInstance, startAlto } from './alto.js';

/** MAX_FEE_PER_GAS of the service under test: 4 gwei (anvil's suggestion is about 2). */
const CAP = 4_000_000_000n;

/**
 * A bundler in front of Alto that dauth talks to (BUNDLER_RPC_URL): it records every operation dauth sends and,
 * when told, refuses each one naming a fee floor of its choosing (a hostile or misbehaving bundler).
 */
interface BundlerProxy {
  url: string;
  /** Where requests are forwarded: Alto's `/rpc` (API v1) or `/v2/rpc` (refuses fees under its floor). */
  target: string;
  /** When set, every `eth_sendUserOperation` is answered with this refusal and not forwarded. */
  demand: string | undefined;
  /** When set, Alto's `eth_estimateUserOperationGas` answers come back with this `preVerificationGas`. */
  inflate: bigint | undefined;
  /** Every operation received by `eth_sendUserOperation`, in its JSON-RPC form. */
  received: Record<string, Hex>[];
  close(): Promise<void>;
}

async function startBundlerProxy(target: string): Promise<BundlerProxy> {
  const proxy: BundlerProxy = {
    url: '',
    target,
    demand: undefined,
    inflate: undefined,
    received: [],
    close: async () => {},
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const rpc = JSON.parse(body.toString()) as { id: number; method: string; params: unknown[] };
      if (rpc.method === 'eth_sendUserOperation') {
        proxy.received.push(rpc.params[0] as Record<string, Hex>);
        if (proxy.demand !== undefined) {
          response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(
              JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error: { code: -32602, message: proxy.demand } }),
            );
          return;
        }
      }
      fetch(proxy.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (answer) => {
          let text = await answer.text();
          if (rpc.method === 'eth_estimateUserOperationGas' && proxy.inflate !== undefined) {
            const parsed = JSON.parse(text) as { result?: Record<string, Hex> };
            if (parsed.result) parsed.result.preVerificationGas = `0x${proxy.inflate.toString(16)}`;
            text = JSON.stringify(parsed);
          }
          response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
        })
        .catch(() => response.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

/** Issue 36: MAX_FEE_PER_GAS caps both fee fields of every user operation signed for BUNDLER_RPC_URL. */
describe('MAX_FEE_PER_GAS on the external bundler path (Alto behind a proxy)', () => {
  let node: AnvilInstance;
  let alto: AltoInstance;
  let proxy: BundlerProxy;
  let server: TestServer;
  let journal: UserOperationJournalStore;
  const executor = generatePrivateKey();
  const utility = generatePrivateKey();
  const reader = () => createPublicClient({ transport: httpTransport(node.rpcUrl) });
  const rpc = (method: string, params: unknown[]) =>
    reader().request({ method: method as never, params: params as never });

  /** Every operation the bundler received (since the `from`th) offers at most the cap, the tip within the fee. */
  function expectAllWithinCap(from = 0): void {
    expect(proxy.received.length).toBeGreaterThan(from);
    for (const op of proxy.received.slice(from)) {
      expect(BigInt(op.maxFeePerGas!)).toBeLessThanOrEqual(CAP);
      expect(BigInt(op.maxPriorityFeePerGas!)).toBeLessThanOrEqual(BigInt(op.maxFeePerGas!));
    }
  }

  /** The journal rows of the operations the bundler received since `from`: all settled, none left `sent`. */
  async function journalStates(from: number): Promise<string[]> {
    const { chainId, contracts } = server.services.chain.info;
    return Promise.all(
      proxy.received.slice(from).map(async (op) => {
        const hash = getUserOpHash(operationFromRpc(op), contracts.entry_point, chainId);
        return (await journal.get(hash))?.state ?? 'missing';
      }),
    );
  }

  async function readyz(): Promise<Record<string, string>> {
    const response = await fetch(`${server.url}/readyz`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    return ((await response.json()) as { checks: Record<string, string> }).checks;
  }

  beforeAll(async () => {
    node = await startAnvil();
    const bank = createWalletClient({
      account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
      transport: httpTransport(node.rpcUrl),
    });
    const mined = async (hash: Hex) => reader().waitForTransactionReceipt({ hash, pollingInterval: 100 });
    await mined(
      await bank.sendTransaction({
        chain: null,
        to: DETERMINISTIC_DEPLOYER,
        data: canonicalEntryPointDeployData(),
      }),
    );
    const keys = freshKeys();
    for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY, executor, utility]) {
      await mined(
        await bank.sendTransaction({
          chain: null,
          to: privateKeyToAccount(key).address,
          value: parseEther('100'),
        }),
      );
    }
    alto = await startAlto({
      rpcUrl: node.rpcUrl,
      entryPoint: CANONICAL_ENTRY_POINT,
      executorKey: executor,
      utilityKey: utility,
      safeMode: false,
      // Its API v2 (`/v2/rpc`) refuses priority fees under 5 gwei, naming that floor: above the cap.
      extraArgs: ['--floor-max-priority-fee-per-gas', '5'],
    });
    proxy = await startBundlerProxy(alto.url);
    server = await startTestServer({
      env: { CHAIN_RPC_URL: node.rpcUrl, BUNDLER_RPC_URL: proxy.url, MAX_FEE_PER_GAS: String(CAP), ...keys },
      chain: { externalBundler: { pollIntervalMs: { min: 50, max: 250 } } },
    });
    journal = new UserOperationJournalStore(server.services.database.db);
    const { contracts } = server.services.chain.info;
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
    const deployer = createWalletClient({
      account: privateKeyToAccount(keys.DEPLOYER_PRIVATE_KEY),
      transport: httpTransport(node.rpcUrl),
    });
    await mined(
      await deployer.writeContract({
        chain: null,
        address: contracts.paymaster,
        abi: dauthPaymasterAbi,
        functionName: 'addStake',
        args: [86_400],
        value: parseEther('1'),
      }),
    );
  }, 180_000);

  // Each test starts with the honest bundler, whatever the one before left.
  beforeEach(() => {
    proxy.demand = undefined;
    proxy.inflate = undefined;
    proxy.target = alto.url;
  });

  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await alto?.stop();
    await node?.stop();
  });

  it('a bundler demanding a floor above the cap gets nothing signed above it: 503 fee_cap_exceeded, nothing changed', async () => {
    const token = server.services.chain.info.contracts.token;
    const user = await newUser(server, 'feecap');
    const wallet = await registerPin(server, user, '424242');
    const funded = await call(
      server,
      '/v1/admin/faucet',
      { address: wallet.address, token: '1000000' },
      server.services.secrets.adminApiKey,
    );
    expect(funded.status).toBe(200);
    const recipient = getAddress(`0x${'cf'.repeat(20)}`);
    const transfer = () =>
      call<Record<string, unknown>>(
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
    const nonce = await server.services.chain.gateway.getNonce(wallet.address);

    // The hostile bundler refuses every operation, naming a floor far above the cap (1000 gwei).
    const from = proxy.received.length;
    proxy.demand =
      'maxFeePerGas must be at least 1000000000000 (current maxFeePerGas: 1) - use pimlico_getUserOperationGasPrice';
    const refused = await transfer();
    expect(proxy.received.length).toBeGreaterThan(from);
    expectAllWithinCap();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ success: false, error: 'fee_cap_exceeded' });
    // Nothing ran, nothing is left open in the journal, and /readyz says fees are capped.
    expect(await journalStates(from)).toEqual(proxy.received.slice(from).map(() => 'dropped'));
    expect(await journal.open(server.services.chain.info.chainId)).toEqual([]);
    expect(await server.services.chain.gateway.getNonce(wallet.address)).toBe(nonce);
    const balance = () =>
      reader().readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] });
    expect(await balance()).toBe(0n);
    expect((await readyz()).chain_fees).toMatch(/^fees capped: the chain asks 1000000000000 wei per gas/);

    // A floor that is no number a fee can hold (a 500-digit one) is not followed either.
    const garbage = proxy.received.length;
    proxy.demand = `maxPriorityFeePerGas must be at least ${'9'.repeat(500)}`;
    const nonsense = await transfer();
    expect(nonsense.status).toBe(422);
    expect(nonsense.body).toMatchObject({ success: false, error: 'user_operation_rejected' });
    expect(proxy.received.length).toBe(garbage + 1);
    expectAllWithinCap();
    expect(await server.services.chain.gateway.getNonce(wallet.address)).toBe(nonce);

    // The bundler honest again: the transfer goes through, and the fee state clears.
    proxy.demand = undefined;
    const done = await transfer();
    expect(done.status).toBe(200);
    expect(await balance()).toBe(2500n);
    expectAllWithinCap();
    expect((await readyz()).chain_fees).toBe('ok');
  }, 120_000);

  it("an honest bundler whose floor is above the cap (Alto's API v2, 5 gwei tips) is refused, nothing signed above the cap", async () => {
    const { chain } = server.services;
    const from = proxy.received.length;
    proxy.target = alto.url.replace(/\/rpc$/, '/v2/rpc');
    try {
      const owner = randomOwner();
      const outcome = await chain.operations
        .submitOperation({ owner, salt: 0n, calls: [chain.calls.nativeTransfer(owner.address, 0n)] })
        .catch((err: unknown) => err);
      expectAllWithinCap(from);
      expect(outcome).toMatchObject({ status: 503, code: 'fee_cap_exceeded' });
      expect(await journalStates(from)).toEqual(proxy.received.slice(from).map(() => 'dropped'));
      expect(await chain.gateway.isDeployed(chain.gateway.walletAddress(owner.address, 0n))).toBe(false);
    } finally {
      proxy.target = alto.url;
    }
  }, 60_000);

  it('a bundler inflating its gas estimate past SPONSOR_MAX_OPERATION_GAS gets nothing signed: 502 bundler_gas_refused', async () => {
    const { chain } = server.services;
    const from = proxy.received.length;
    // Pre-verification gas is paid to the bundler's beneficiary: 5M of it is a drain on the paymaster's deposit.
    proxy.inflate = 5_000_000n;
    const owner = randomOwner();
    const outcome = await chain.operations
      .submitOperation({ owner, salt: 0n, calls: [chain.calls.nativeTransfer(owner.address, 0n)] })
      .catch((err: unknown) => err);
    expect(outcome).toMatchObject({ status: 502, code: 'bundler_gas_refused' });
    expect(proxy.received.length).toBe(from);
    expect(await chain.gateway.isDeployed(chain.gateway.walletAddress(owner.address, 0n))).toBe(false);

    // An honest estimate again: the same operation goes through.
    proxy.inflate = undefined;
    const done = await chain.operations.submitOperation({
      owner,
      salt: 0n,
      calls: [chain.calls.nativeTransfer(owner.address, 0n)],
    });
    expect(done).toBeDefined();
    expect(proxy.received.length).toBeGreaterThan(from);
    for (const op of proxy.received.slice(from)) {
      const gas =
        BigInt(op.callGasLimit!) + BigInt(op.verificationGasLimit!) + BigInt(op.preVerificationGas!);
      expect(gas).toBeLessThanOrEqual(BigInt(server.config.sponsorship.maxOperationGas));
    }
  }, 60_000);

  it('a base-fee spike above the cap: the operation is signed at the cap at most, never at the chain price', async () => {
    const { chain } = server.services;
    const from = proxy.received.length;
    // The chain's honest price jumps to about 60 gwei, 15 times the cap; Alto's API v2 asks at least that.
    await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${50_000_000_000n.toString(16)}`]);
    await rpc('evm_mine', []);
    proxy.target = alto.url.replace(/\/rpc$/, '/v2/rpc');
    try {
      chain.gateway.resetCaches();
      expect((await chain.gateway.fees()).maxFeePerGas).toBeGreaterThan(CAP);
      const owner = randomOwner();
      const outcome = await chain.operations
        .submitOperation({ owner, salt: 0n, calls: [chain.calls.nativeTransfer(owner.address, 0n)] })
        .catch((err: unknown) => err);
      expectAllWithinCap(from);
      expect(outcome).toMatchObject({ status: 503, code: 'fee_cap_exceeded' });
      expect(await journalStates(from)).toEqual(proxy.received.slice(from).map(() => 'dropped'));
    } finally {
      proxy.target = alto.url;
      await rpc('anvil_setNextBlockBaseFeePerGas', ['0x3b9aca00']);
      await rpc('evm_mine', []);
      chain.gateway.resetCaches();
    }
  }, 60_000);
});
