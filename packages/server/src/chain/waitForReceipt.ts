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

/**
 * Waits until `hash` is mined `confirmations` blocks deep (its own block counted) on the chain as it is now,
 * and returns its receipt. A reorg that takes it out of the chain only makes the wait longer: the receipt is
 * read again each round, so the answer is always a block the chain holds. For writes outside the relayer's
 * submitter (the deployment at start): CHAIN_CONFIRMATIONS before they are taken as done.
 */
export async function waitForConfirmations(
  client: ChainClient,
  hash: Hash,
  confirmations: number,
  { timeoutMs = 120_000, pauseMs = 500 }: { timeoutMs?: number; pauseMs?: number } = {},
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  let receipt = await waitForReceipt(client, hash, { timeoutMs });
  for (;;) {
    if (confirmations <= 1) return receipt;
    const head = await atGateway(() => client.getBlockNumber({ cacheTime: 0 }));
    if (head >= receipt.blockNumber + BigInt(confirmations - 1)) {
      // Deep enough: still the same block (a reorg may have moved it)?
      const now = await atGateway(() => fetchReceipt(client, hash));
      if (now && now.blockHash === receipt.blockHash) return now;
      if (now) receipt = now;
    }
    if (Date.now() > deadline) throw chainUnavailable(`${hash} not ${confirmations} blocks deep in time`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const again = await atGateway(() => fetchReceipt(client, hash));
    if (again) receipt = again;
  }
}
