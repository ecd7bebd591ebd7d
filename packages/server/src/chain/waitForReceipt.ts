import { type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem';
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
    const receipt = await atGateway(() =>
      client.getTransactionReceipt({ hash }).catch((err: unknown) => {
        if (err instanceof TransactionReceiptNotFoundError) return null;
        throw err;
      }),
    );
    if (receipt) return receipt;
    if (Date.now() > deadline) throw chainUnavailable(`No receipt for ${hash} in time`);
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, maxPauseMs);
  }
}
