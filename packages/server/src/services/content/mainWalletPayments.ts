import type { Address, Call, Hash } from '../../chain/types.js';
import { AppError, OperationReverted } from '../../errors.js';
import type { WalletStore } from '../../stores/walletStore.js';
import type { CustodyService } from '../custody/custodyService.js';
import type { PinTrio, UserWalletExecutor } from './ports.js';

/**
 * Content-token purchases paid from the user's own main wallet (W_SALT), through PIN custody's `operate`:
 * the PIN trio is required (401 `pin_required`), the user must have a wallet (404 `wallet_not_found`), and
 * a call that was mined but reverted is a 422 `operation_reverted`.
 */
export class MainWalletPayments implements UserWalletExecutor {
  constructor(
    private readonly custody: Pick<CustodyService, 'operate'>,
    private readonly wallets: Pick<WalletStore, 'mainWallet'>,
  ) {}

  async executeFromMainWallet(
    userUuid: number,
    pin: Partial<PinTrio>,
    calls: Call[],
  ): Promise<{ txHash: Hash; userOpHash?: Hash | undefined }> {
    if (!pin.pinHash || !pin.pinSalt || !pin.keyShareUser) {
      throw new AppError(
        401,
        'pin_required',
        'pin_hash, pin_salt and key_share_user are required for this operation',
      );
    }
    const main = await this.wallets.mainWallet(userUuid);
    if (!main) throw new AppError(404, 'wallet_not_found', 'Register a PIN first: the user has no wallet');
    const result = await this.custody.operate(
      userUuid,
      main.address,
      { pinHash: pin.pinHash, keyShareUser: pin.keyShareUser },
      calls,
    );
    if (!result.success) {
      throw OperationReverted.included(result, 'The purchase was included but reverted');
    }
    return { txHash: result.txHash, userOpHash: result.userOpHash };
  }

  async mainWalletOf(userUuid: number): Promise<Address | undefined> {
    return (await this.wallets.mainWallet(userUuid))?.address;
  }
}
