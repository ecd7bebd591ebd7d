import { entryPointAbi } from '@dauth/contracts';
import { parseEventLogs, type TransactionReceipt } from 'viem';
import { decodeRevertReason } from '../revertReason.js';
import type { Address, Hash } from '../types.js';

export interface OperationOutcome {
  success: boolean;
  revertReason?: string;
  actualGasCost: bigint;
}

/**
 * Reads a mined `handleOps` receipt: one `UserOperationEvent` per executed operation, plus a
 * `UserOperationRevertReason` for each whose call reverted. Keyed by lowercase userOpHash.
 */
export function decodeOperationResults(
  receipt: TransactionReceipt,
  entryPoint: Address,
): Map<string, OperationOutcome> {
  const logs = receipt.logs.filter((log) => log.address.toLowerCase() === entryPoint.toLowerCase());
  const events = parseEventLogs({
    abi: entryPointAbi,
    logs,
    eventName: ['UserOperationEvent', 'UserOperationRevertReason'],
  });
  const outcomes = new Map<string, OperationOutcome>();
  const reasons = new Map<string, string>();
  for (const event of events) {
    const hash = (event.args.userOpHash as Hash).toLowerCase();
    if (event.eventName === 'UserOperationEvent') {
      outcomes.set(hash, { success: event.args.success, actualGasCost: event.args.actualGasCost });
    } else {
      reasons.set(hash, decodeRevertReason(event.args.revertReason).message);
    }
  }
  for (const [hash, reason] of reasons) {
    const outcome = outcomes.get(hash);
    if (outcome) outcome.revertReason = reason;
  }
  for (const outcome of outcomes.values()) {
    // A call that ran out of gas reverts without a UserOperationRevertReason.
    if (!outcome.success && outcome.revertReason === undefined)
      outcome.revertReason = 'reverted without a reason (or out of gas)';
  }
  return outcomes;
}
