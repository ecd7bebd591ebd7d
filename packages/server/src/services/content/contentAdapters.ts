import { AppError } from '../../errors.js';
import type { ClientDirectory, SlotDirectory, SlotView, UserWalletExecutor } from './ports.js';
import type { Address, Call, Hash } from '../../chain/types.js';

/**
 * The content domain's ports over the other domains' public APIs, so the composition root wires them in
 * one line each and the content services never depend on another domain's internals.
 */

export function clientDirectoryOf(clients: {
  findClient(clientId: string): Promise<{ ownerUuid: number } | undefined>;
}): ClientDirectory {
  return { ownerOf: async (clientId) => (await clients.findClient(clientId))?.ownerUuid };
}

interface SlotLike {
  id: string;
  clientId: string;
  ownerUuid: number;
  contentAddress: Address;
}

const view = (s: SlotLike | undefined): SlotView | undefined =>
  s && { id: s.id, clientId: s.clientId, ownerUuid: s.ownerUuid, contentAddress: s.contentAddress };

/** Confirmed slots only (`SlotService.findSlot` leaves out slots still being created). */
export function slotDirectoryOf(slots: {
  findSlot(id: string): Promise<SlotLike | undefined>;
  findByContentAddress(address: string): Promise<SlotLike | undefined>;
}): SlotDirectory {
  return {
    findById: async (id) => view(await slots.findSlot(id)),
    findByContentAddress: async (address) => view(await slots.findByContentAddress(address)),
  };
}

/** PIN custody's `operate` from the user's main wallet (W_SALT); a reverted call is a 422. */
export function walletExecutorOf(
  custody: {
    operate(
      userUuid: number,
      walletAddress: Address,
      proof: { pinHash: string; keyShareUser: string },
      calls: Call[],
    ): Promise<{ success: boolean; txHash: Hash; userOpHash: Hash; revertReason?: string }>;
  },
  wallets: { mainWallet(userUuid: number): Promise<{ address: Address } | undefined> },
): UserWalletExecutor {
  return {
    async executeFromMainWallet(userUuid, pin, calls) {
      if (!pin.pinHash || !pin.pinSalt || !pin.keyShareUser) {
        throw new AppError(
          401,
          'pin_required',
          'pin_hash, pin_salt and key_share_user are required for this operation',
        );
      }
      const main = await wallets.mainWallet(userUuid);
      if (!main) throw new AppError(404, 'wallet_not_found', 'Register a PIN first: the user has no wallet');
      const result = await custody.operate(
        userUuid,
        main.address,
        { pinHash: pin.pinHash, keyShareUser: pin.keyShareUser },
        calls,
      );
      if (!result.success) {
        throw new AppError(
          422,
          'operation_reverted',
          `The purchase was included but reverted: ${result.revertReason ?? 'no reason'}`,
          {
            tx_hash: result.txHash,
            user_op_hash: result.userOpHash,
          },
        );
      }
      return { txHash: result.txHash, userOpHash: result.userOpHash };
    },
    mainWalletOf: async (userUuid) => (await wallets.mainWallet(userUuid))?.address,
  };
}
