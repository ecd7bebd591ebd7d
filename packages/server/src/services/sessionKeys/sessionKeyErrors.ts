import { AppError } from '../../errors.js';

export const invalidWalletPolicy = (field: string, message: string) =>
  new AppError(400, 'invalid_wallet_policy', message, { field, details: { field } });

export const walletPolicyNotFound = () =>
  new AppError(404, 'wallet_policy_not_found', 'This app has no wallet policy');

export const appNotApproved = () =>
  new AppError(
    409,
    'app_not_approved',
    'You have not approved this app (sign in to it first): a wallet grant needs the app grant it belongs to',
  );

export const sessionKeyNotFound = () =>
  new AppError(404, 'session_key_not_found', 'No active session key of this app for this wallet');

export const sessionKeysUnavailable = (message: string) =>
  new AppError(503, 'session_keys_unavailable', message);

/**
 * Why the off-chain pre-check refused a call: the wallet contract's rules, and two of the service's own
 * (`uncapped_value_call`, `approval_not_reset`: policyCheck.ts).
 */
export type PolicyRefusal =
  | 'forbidden_target'
  | 'call_not_allowed'
  | 'value_per_call'
  | 'value_per_day'
  | 'token_call_not_capped'
  | 'token_per_day'
  | 'uncapped_value_call'
  | 'approval_not_reset'
  | 'expired';

export const outsideSessionPolicy = (callIndex: number, reason: PolicyRefusal) =>
  new AppError(
    403,
    'outside_session_policy',
    `Call ${callIndex} is outside the app's wallet grant (${reason})`,
    {
      details: { call_index: callIndex, reason },
    },
  );
