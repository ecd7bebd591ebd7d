import { AppError, invalidField, OperationReverted } from '../../errors.js';
import type { CustodyService, PinProof } from '../custody/custodyService.js';
import type { Address, Hash, WalletChain } from '../custody/walletChain.js';

export interface TokenTransfer {
  userUuid: number;
  fromAddress: Address;
  toAddress: Address;
  /** Base units of the token. */
  amount: bigint;
  contractAddress: Address;
  /** Undefined when the request carried none of the PIN trio: 401 `pin_required`. */
  pin: PinProof | undefined;
}

const MAX_UINT256 = 2n ** 256n - 1n;

/**
 * ERC-20 transfers (spec endpoint 4) from one of the caller's wallets: `token.transfer(to, amount)`
 * through a sponsored operation signed with the PIN-unlocked owner key.
 */
export class TokenTransferService {
  constructor(
    private readonly custody: CustodyService,
    private readonly chain: WalletChain,
  ) {}

  async transfer(input: TokenTransfer): Promise<{ transactionHash: Hash; userOpHash: Hash }> {
    if (!input.pin) {
      throw new AppError(401, 'pin_required', 'This operation needs pin_hash, pin_salt and key_share_user');
    }
    if (input.amount <= 0n || input.amount > MAX_UINT256) {
      throw invalidField('amount', 'amount must be a positive integer of at most 2^256 - 1 base units');
    }
    await this.custody.requireWallet(input.userUuid, input.fromAddress);
    // A call to an address without code "succeeds" and moves nothing: refuse it up front.
    if (!(await this.chain.hasCode(input.contractAddress))) {
      throw invalidField('contract_address', 'contract_address is not a contract on this chain');
    }
    const result = await this.custody.operate(input.userUuid, input.fromAddress, input.pin, [
      this.chain.erc20TransferCall(input.contractAddress, input.toAddress, input.amount),
    ]);
    if (!result.success) throw OperationReverted.included(result);
    return { transactionHash: result.txHash, userOpHash: result.userOpHash };
  }
}
