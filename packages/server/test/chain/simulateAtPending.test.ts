/**
 * `ChainGateway.simulateHandleOps` at the turn of a validity window (docs/session-keys.md, "The turn of the day"):
 * a refusal for the window at `latest` is asked again at `pending`; any other refusal is not, and a node that
 * cannot run at `pending` leaves the refusal standing. A unit test of the choice, with a scripted node; the real
 * chain's case is test/sessionKeys/dayBoundary.test.ts.
 */
import { RpcRequestError, zeroAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { ChainClient } from '../../src/chain/chainClient.js';
import { ChainGateway } from '../../src/chain/chainGateway.js';
import type { ContractAddresses } from '../../src/chain/types.js';
import { failedOpData } from './chainTestHelpers.js';

const failedOp = (reason: string) =>
  new RpcRequestError({
    body: {},
    url: 'http://node',
    error: {
      code: 3,
      message: 'execution reverted',
      data: failedOpData(reason),
    },
  });

/** A node whose answer to a simulation depends on the block tag it is asked at; it records the tags. */
function gatewayOver(answer: (tag: string) => { gasUsed: Hex } | Error) {
  const tags: string[] = [];
  const client = {
    request: async ({ params }: { method: string; params: unknown[] }) => {
      const tag = String(params[1]);
      tags.push(tag);
      const a = answer(tag);
      if (a instanceof Error) throw a;
      return a;
    },
  } as unknown as ChainClient;
  const contracts = { entry_point: zeroAddress } as unknown as ContractAddresses;
  return { gateway: new ChainGateway(client, 31337, contracts, zeroAddress), tags };
}

const op = {
  sender: zeroAddress,
  nonce: 0n,
  initCode: '0x' as Hex,
  callData: '0x' as Hex,
  callGasLimit: 100_000n,
  verificationGasLimit: 100_000n,
  preVerificationGas: 50_000n,
  maxFeePerGas: 1n,
  maxPriorityFeePerGas: 1n,
  paymasterAndData: '0x' as Hex,
  signature: '0x' as Hex,
};

describe('a bundle simulation refused for a validity window', () => {
  it('is run again at pending, whose answer counts', async () => {
    const { gateway, tags } = gatewayOver((tag) =>
      tag === 'latest' ? failedOp('AA22 expired or not due') : { gasUsed: '0x186a0' },
    );
    const result = await gateway.simulateHandleOps([op], zeroAddress, 1_000_000n);
    expect(result.ok).toBe(true);
    expect(tags).toEqual(['latest', 'pending']);
  });

  it('stays refused when pending refuses it too, or cannot be asked', async () => {
    for (const atPending of [failedOp('AA32 paymaster expired or not due'), new Error('unknown block tag')]) {
      const { gateway } = gatewayOver((tag) =>
        tag === 'latest' ? failedOp('AA22 expired or not due') : atPending,
      );
      const result = await gateway.simulateHandleOps([op], zeroAddress, 1_000_000n);
      expect(result).toEqual({ ok: false, opIndex: 0, reason: expect.stringMatching(/^AA[23]2 /) });
    }
  });

  it('is not asked again for any other refusal', async () => {
    const { gateway, tags } = gatewayOver(() => failedOp('AA24 signature error'));
    expect(await gateway.simulateHandleOps([op], zeroAddress, 1_000_000n)).toEqual({
      ok: false,
      opIndex: 0,
      reason: 'AA24 signature error',
    });
    expect(tags).toEqual(['latest']);
  });
});
