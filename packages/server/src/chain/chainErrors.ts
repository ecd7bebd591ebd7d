import { BaseError, HttpRequestError, TimeoutError } from 'viem';
import { AppError, chainUnavailable, OperationReverted } from '../errors.js';
import { decodeRevertReason } from './revertReason.js';
import type { Hash, Hex } from './types.js';

/**
 * The chain layer's typed errors. Nothing above the gateway sees a JSON-RPC blob: transport failures become
 * `chain_unavailable` (503), EntryPoint `FailedOp` reasons become `UserOperationRejectedError` with a code per
 * AA class, and reverts become `OperationReverted` (src/errors.ts) carrying the decoded revert.
 */

interface AaRule {
  status: number;
  code: string;
  message: string;
}

/** "AA22"/"AA32 expired or not due": the account's or the paymaster's validity window (isOutsideValidityWindow). */
const OUTSIDE_VALIDITY_WINDOW = /^AA(22|32)/;

/** EntryPoint v0.6 reason prefixes (`AA1x` factory, `AA2x` account, `AA3x` paymaster, `AA4x`/`AA5x` gas, `AA9x` bundle). */
const AA_RULES: { prefix: RegExp; rule: AaRule }[] = [
  {
    prefix: /^AA(10|13|14|15|20)/,
    rule: { status: 500, code: 'wallet_deployment_failed', message: 'The wallet could not be deployed' },
  },
  {
    prefix: OUTSIDE_VALIDITY_WINDOW,
    rule: { status: 422, code: 'operation_expired', message: 'The operation is outside its validity window' },
  },
  {
    prefix: /^AA(23|24)/,
    rule: {
      status: 403,
      code: 'invalid_owner_signature',
      message: "The operation is not signed by the wallet's on-chain owner",
    },
  },
  {
    prefix: /^AA25/,
    rule: { status: 409, code: 'nonce_conflict', message: "The wallet's nonce moved; retry the request" },
  },
  {
    prefix: /^AA(21|31)/,
    rule: {
      status: 503,
      code: 'sponsorship_unavailable',
      message: "The platform's gas sponsorship is not funded right now; nothing was changed",
    },
  },
  {
    prefix: /^AA(30|33|34)/,
    rule: {
      status: 500,
      code: 'sponsorship_rejected',
      message: "The paymaster rejected the platform's sponsorship",
    },
  },
];

/**
 * "AA22"/"AA32 expired or not due": the account's or the paymaster's validity window does not hold the block's
 * time. The EntryPoint checks the windows after the operation's nonce: such a refusal also says its nonce is
 * still unused at that block.
 */
export const isOutsideValidityWindow = (reason: string): boolean => OUTSIDE_VALIDITY_WINDOW.test(reason);

const DEFAULT_RULE: AaRule = {
  status: 422,
  code: 'user_operation_rejected',
  message: 'The EntryPoint rejected the operation',
};

/** A `FailedOp(opIndex, reason)` of the EntryPoint: the operation failed validation and was not executed. */
export class UserOperationRejectedError extends AppError {
  /** `AA24` etc., when the reason carries one. */
  readonly aaCode: string | undefined;
  constructor(
    /** The EntryPoint's reason text, e.g. `AA24 signature error`. */
    readonly reason: string,
    readonly userOpHash?: Hash,
  ) {
    const aaCode = /^AA\d\d/.exec(reason)?.[0];
    const rule = AA_RULES.find((r) => r.prefix.test(reason))?.rule ?? DEFAULT_RULE;
    super(rule.status, rule.code, `${rule.message} (${reason})`, {
      reason,
      ...(userOpHash ? { user_op_hash: userOpHash } : {}),
    });
    this.name = 'UserOperationRejectedError';
    this.aaCode = aaCode;
  }
}

/** True when `err` means the node did not answer (connection refused, timeout, HTTP 5xx/429, socket closed). */
export function isTransportError(err: unknown): boolean {
  if (err instanceof BaseError) {
    const transport = err.walk(
      (e) =>
        e instanceof HttpRequestError ||
        e instanceof TimeoutError ||
        (e instanceof BaseError && /^(WebSocketRequestError|SocketClosedError)$/.test(e.name)) ||
        (e instanceof BaseError && 'code' in e && (e.code === -32005 || e.code === 429)),
    );
    if (transport) return true;
  }
  const code =
    (err as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (err as { code?: unknown })?.code;
  return (
    typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN)$/.test(code)
  );
}

/** The revert data carried by a viem error (an `eth_call`/`eth_estimateGas` revert), if any. */
export function revertDataOf(err: unknown): Hex | undefined {
  if (!(err instanceof BaseError)) return undefined;
  let data: Hex | undefined;
  err.walk((e) => {
    const candidate = (e as { data?: unknown; raw?: unknown }).raw ?? (e as { data?: unknown }).data;
    if (typeof candidate === 'string' && /^0x[0-9a-fA-F]*$/.test(candidate)) {
      data = candidate as Hex;
      return true;
    }
    return false;
  });
  return data;
}

/** True when the node reported an execution revert (as opposed to a transport or protocol failure). */
export function isRevert(err: unknown): boolean {
  if (!(err instanceof BaseError)) return false;
  return Boolean(
    err.walk(
      (e) =>
        e instanceof BaseError &&
        (e.name === 'ExecutionRevertedError' ||
          e.name === 'ContractFunctionRevertedError' ||
          e.name === 'RawContractError' ||
          ('code' in e && e.code === 3)),
    ),
  );
}

/**
 * The gateway boundary: anything a viem call threw becomes an `AppError`. FailedOp reverts become
 * `UserOperationRejectedError`, other reverts `OperationReverted` (nothing was sent), a silent node `chain_unavailable`.
 * Unrecognised errors are passed through unchanged (they are bugs, rendered as 500).
 */
export function translateChainError(err: unknown): unknown {
  if (err instanceof AppError) return err;
  if (isTransportError(err)) return chainUnavailable();
  if (isRevert(err)) {
    const revert = decodeRevertReason(revertDataOf(err));
    if (revert.name === 'FailedOp') return new UserOperationRejectedError(String(revert.args[1]));
    return new OperationReverted(revert, 'The call would revert');
  }
  return err;
}

/** Runs `fn`, translating whatever it throws at the gateway boundary. */
export async function atGateway<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translateChainError(err);
  }
}

/** Every message and `details` of a node error and its causes, lower-cased: what send errors are read from. */
export function errorText(err: unknown): string {
  const parts: string[] = [];
  if (err instanceof BaseError) {
    err.walk((e) => {
      parts.push(String((e as { details?: unknown }).details ?? ''), (e as Error).message);
      return false;
    });
  } else if (err instanceof Error) parts.push(err.message);
  return parts.join(' ').toLowerCase();
}

/**
 * What a node's refusal of `eth_sendRawTransaction` says, from its error text (nodes word these
 * differently): `known` — this very transaction is already in the pool or mined; `nonce_used` — another
 * transaction took the nonce; `underpriced` — a transaction with the same nonce is in the pool; `unfunded`
 * — the sender cannot pay for gas; `fee_too_low` — its fee cap is under the base fee now (not taken). Undefined
 * for anything else.
 */
export function classifySendError(
  text: string,
): 'known' | 'nonce_used' | 'underpriced' | 'fee_too_low' | 'unfunded' | undefined {
  if (/already known|known transaction|already imported/.test(text)) return 'known';
  if (/nonce too low|nonce has already been used|nonce is too low/.test(text)) return 'nonce_used';
  if (/underpriced/.test(text)) return 'underpriced';
  // geth and anvil: the fee cap is under the current base fee (a spike); the transaction is not in the pool.
  if (/fee per gas less than block base fee|fee cap less than block base fee|feecap too low/.test(text)) {
    return 'fee_too_low';
  }
  if (/insufficient funds/.test(text)) return 'unfunded';
  return undefined;
}
