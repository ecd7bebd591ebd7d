import type { ChainFacts } from '../services/chainConsistency/chainConsistencyCheck.js';
import { atGateway } from '../chain/chainErrors.js';
import type { ChainGateway } from '../chain/chainGateway.js';
import type { Address } from '../chain/types.js';

/** The chain side of the consistency check, over the gateway's typed reads. */
export function chainFactsOf(gateway: ChainGateway): ChainFacts {
  return {
    // Asked of the node itself: the gateway's cache of deployed wallets is what is being checked.
    walletDeployed: async (address) => {
      const code = await atGateway(() => gateway.client.getCode({ address: address as Address }));
      return code !== undefined && code !== '0x';
    },
    slotOwner: (slotId) => gateway.slotOwner(BigInt(slotId)),
    contentFigures: async (cuid, slot) => {
      const [balance, used] = await Promise.all([
        gateway.read('contentToken', 'balanceOf', [cuid, slot as Address]),
        gateway.read('contentToken', 'usedBalanceOf', [cuid, slot as Address]),
      ]);
      return { balance, used };
    },
  };
}
