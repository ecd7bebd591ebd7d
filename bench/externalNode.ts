/**
 * `--block-time` for the benchmarks: an anvil of their own in dauth's external-chain mode, with fresh keys
 * funded from anvil's first account. It mines instantly while the service deploys and the wallets are
 * funded; `intervalMining()` then switches it to a block every `blockTime` seconds, whatever is pending.
 */
import { type AnvilInstance, startAnvil } from '@dauth/contracts';
import { createWalletClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { ANVIL_DEV_KEYS } from '../packages/server/src/chain/devAccounts.js';

export interface ExternalNode {
  anvil: AnvilInstance;
  /** CHAIN_RPC_URL and the four keys, for the service's environment. */
  env: Record<string, string>;
  rpc(method: string, params: unknown[]): Promise<unknown>;
  intervalMining(): Promise<void>;
}

export async function startExternalNode(blockTime: number, fundingEther: string): Promise<ExternalNode> {
  const anvil = await startAnvil();
  const keys = {
    DEPLOYER_PRIVATE_KEY: generatePrivateKey(),
    RELAYER_PRIVATE_KEY: generatePrivateKey(),
    PAYMASTER_SIGNER_PRIVATE_KEY: generatePrivateKey(),
    OPERATOR_OWNER_PRIVATE_KEY: generatePrivateKey(),
  };
  const bank = createWalletClient({
    account: privateKeyToAccount(ANVIL_DEV_KEYS[0]),
    transport: http(anvil.rpcUrl),
  });
  for (const key of [keys.DEPLOYER_PRIVATE_KEY, keys.RELAYER_PRIVATE_KEY]) {
    await bank.sendTransaction({
      chain: null,
      to: privateKeyToAccount(key).address,
      value: parseEther(fundingEther),
    });
  }
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const response = await fetch(anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const answer = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
    return answer.result;
  };
  return {
    anvil,
    env: { CHAIN_RPC_URL: anvil.rpcUrl, ...keys },
    rpc,
    intervalMining: async () => {
      await rpc('evm_setAutomine', [false]);
      await rpc('evm_setIntervalMining', [blockTime]);
    },
  };
}
