import { formatTransactionReceipt, type RpcTransactionReceipt, type TransactionReceipt } from 'viem';
import { chainUnavailable } from '../errors.js';
import type { ChainClient } from './chainClient.js';
import { atGateway } from './chainErrors.js';
import type { Hash } from './types.js';

/**
 * Polls for a receipt, starting at once and backing off from 2 ms (anvil mines within milliseconds; viem's
 * own waiter polls on a fixed interval). A node that does not answer is `chain_unavailable`.
 */
export async function waitForReceipt(
  client: ChainClient,
  hash: Hash,
  { timeoutMs = 60_000, maxPauseMs = 500 }: { timeoutMs?: number; maxPauseMs?: number } = {},
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  let pause = 2;
  for (;;) {
    const receipt = await atGateway(() => fetchReceipt(client, hash));
    if (receipt) return receipt;
    if (Date.now() > deadline) throw chainUnavailable(`No receipt for ${hash} in time`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, maxPauseMs);
  }
}

/**
 * `eth_getTransactionReceipt`, null while the transaction is not mined. (viem's action throws an error
 * object for every miss, which is costly when polling every few milliseconds.)
 */
export async function fetchReceipt(client: ChainClient, hash: Hash): Promise<TransactionReceipt | null> {
  const raw = await client.request({ method: 'eth_getTransactionReceipt', params: [hash] });
  if (!raw) return null;
  const receipt = formatTransactionReceipt(raw as RpcTransactionReceipt);
  // anvil and reth add the block's timestamp (saving the chain journal a header request per block); viem
  // leaves it in hex.
  const { blockTimestamp } = raw as { blockTimestamp?: string | null };
  return blockTimestamp ? { ...receipt, blockTimestamp: BigInt(blockTimestamp) } : receipt;
}
