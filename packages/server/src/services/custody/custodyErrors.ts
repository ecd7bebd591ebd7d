import { AppError, conflict, forbidden, locked, notFound, unauthorized } from '../../errors.js';

/** The custody error catalogue: stable codes the routes and tests rely on. No message names a secret. */
export const invalidPin = (attemptsRemaining: number) =>
  new AppError(401, 'invalid_pin', 'The PIN or key share is wrong', {
    attempts_remaining: attemptsRemaining,
  });

export const pinLocked = (lockedUntil: number) =>
  locked(
    'pin_locked',
    `Too many wrong PINs: the wallet is locked until ${new Date(lockedUntil).toISOString()}`,
    {
      locked_until: new Date(lockedUntil).toISOString(),
      retryAfterSeconds: Math.max(1, Math.ceil((lockedUntil - Date.now()) / 1000)),
    },
  );

export const pinRequired = () =>
  unauthorized('pin_required', 'This operation needs pin_hash, pin_salt and key_share_user');

export const walletExists = () => conflict('wallet_exists', 'The user already has a wallet');

export const walletNotFound = () =>
  notFound('wallet_not_found', 'The user has no wallet; register a PIN first');

export const notYourWallet = () => forbidden('not_your_wallet', 'The wallet does not belong to the caller');

export const invalidMnemonic = () =>
  unauthorized('invalid_mnemonic', 'The mnemonic does not match the wallet');

export const rotationInProgress = () =>
  new AppError(409, 'rotation_in_progress', "The wallet's owner key is being rotated; retry in a minute", {
    retryAfterSeconds: 60,
  });

export const ownerMismatch = () =>
  conflict(
    'owner_mismatch',
    "The wallet's on-chain owner is not the owner on record; the wallet is frozen until an operator checks it",
  );

export const custodyChanged = () =>
  conflict(
    'custody_changed',
    'The wallet key changed during the request (a concurrent reset or recovery); retry',
  );
