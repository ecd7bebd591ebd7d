import { entryPointAbi } from '@dauth/contracts';
import { parseEventLogs, type TransactionReceipt } from 'viem';
import type { Revert } from '../../errors.js';
import { decodeRevertReason } from '../revertReason.js';
import type { Address, Hash } from '../types.js';

export interface OperationOutcome {
  success: boolean;
  /** Set when the call reverted: decoded from `UserOperationRevertReason`, or a stand-in when it ran out of gas. */
  revert?: Revert;
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
  const reasons = new Map<string, Revert>();
  for (const event of events) {
    const hash = (event.args.userOpHash as Hash).toLowerCase();
    if (event.eventName === 'UserOperationEvent') {
      outcomes.set(hash, { success: event.args.success, actualGasCost: event.args.actualGasCost });
    } else {
      const { name, args, message } = decodeRevertReason(event.args.revertReason);
      reasons.set(hash, { name, args, message });
    }
  }
  for (const [hash, revert] of reasons) {
    const outcome = outcomes.get(hash);
    if (outcome) outcome.revert = revert;
  }
  for (const outcome of outcomes.values()) {
    // A call that ran out of gas reverts without a UserOperationRevertReason.
    if (!outcome.success && outcome.revert === undefined)
      outcome.revert = { name: undefined, args: [], message: 'reverted without a reason (or out of gas)' };
  }
  return outcomes;
}
