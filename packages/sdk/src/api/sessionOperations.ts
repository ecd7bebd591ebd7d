import { MalformedResponseError, OutsideSessionPolicyError, SessionOperationError } from '../errors.js';
import type { JsonObject, JsonValue } from '../losslessJson.js';
import type { ApiContext } from './apiContext.js';
import { callService, type ServiceRefusal } from './serviceCall.js';

/** One call the player's wallet makes under the app's session key. */
export interface SessionCall {
  /** The target contract, `0x` and 40 hex digits. */
  to: string;
  /** Wei sent with the call: a bigint, a safe integer or a decimal string; 0 when absent. */
  value?: bigint | number | string;
  /** The call data, `0x`-hex (a selector and its arguments); `0x` when absent. */
  data?: string;
}

/** A session operation the wallet executed: its ERC-4337 hashes and each call's result. */
export interface SessionOperationResult {
  userOpHash: string;
  /** The transaction that included it (null if the service answered before it was known). */
  txHash: string | null;
  /** One entry per call as the service sent it, `{call_index, to, success}` (large integers exact, as bigint). */
  results: JsonValue[];
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
const DECIMAL = /^(?:0|[1-9]\d*)$/;

/** The body's calls, checked here so that bad input never reaches the service. */
export function sessionCallsBody(calls: readonly SessionCall[]): JsonObject[] {
  if (!Array.isArray(calls) || calls.length === 0) throw new TypeError('calls must be a non-empty array');
  return calls.map((call, index) => {
    const at = `calls[${index}]`;
    if (call === null || typeof call !== 'object') throw new TypeError(`${at} is not an object`);
    if (typeof call.to !== 'string' || !ADDRESS.test(call.to))
      throw new TypeError(`${at}.to is not an address`);
    const data = call.data ?? '0x';
    if (typeof data !== 'string' || !HEX.test(data)) throw new TypeError(`${at}.data is not 0x-hex bytes`);
    return { to: call.to, value: weiText(call.value ?? 0n, at), data };
  });
}

function weiText(value: bigint | number | string, at: string): string {
  if (typeof value === 'bigint' && value >= 0n) return value.toString();
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && DECIMAL.test(value)) return value;
  throw new TypeError(`${at}.value is not a non-negative integer of wei`);
}

function refusal(r: ServiceRefusal): SessionOperationError {
  if (r.errorCode !== 'outside_session_policy') {
    return new SessionOperationError(r.responseStatus, r.errorCode, r.message);
  }
  // decisions §8: `details: {call_index, reason}`; read at the top level too, where the service's
  // error handler spreads an error's details.
  const nested = r.body.details;
  const details: JsonObject =
    nested !== null && typeof nested === 'object' && !Array.isArray(nested) ? nested : r.body;
  const index = details.call_index;
  const callIndex =
    typeof index === 'number' && Number.isSafeInteger(index) && index >= 0 ? index : undefined;
  const reason = typeof details.reason === 'string' ? details.reason : undefined;
  return new OutsideSessionPolicyError(r.responseStatus, r.message, callIndex, reason);
}

/**
 * `POST /v1/wallet/session-operations {calls}` with the player's OAuth access token for the app: the
 * player's wallet makes the calls in one operation, signed by the session key the player granted
 * this app. Outside the granted policy: `OutsideSessionPolicyError` (403), nothing signed.
 */
export async function sessionOperations(
  context: ApiContext,
  accessToken: string,
  calls: readonly SessionCall[],
): Promise<SessionOperationResult> {
  if (typeof accessToken !== 'string' || accessToken === '') throw new TypeError('accessToken is required');
  const body = { calls: sessionCallsBody(calls) };
  const object = await callService(
    context,
    'POST',
    '/v1/wallet/session-operations',
    { body, bearer: accessToken },
    refusal,
  );
  const { user_op_hash, tx_hash, results } = object;
  if (
    typeof user_op_hash !== 'string' ||
    (tx_hash !== undefined && tx_hash !== null && typeof tx_hash !== 'string')
  ) {
    throw new MalformedResponseError('session operation result has missing or mistyped hashes');
  }
  if (results !== undefined && !Array.isArray(results)) {
    throw new MalformedResponseError('session operation results is not an array');
  }
  return { userOpHash: user_op_hash, txHash: tx_hash ?? null, results: results ?? [] };
}
