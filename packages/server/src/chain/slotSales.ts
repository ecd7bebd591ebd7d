import { getSlotSaleHash } from '@dauth/contracts';
import type { LocalAccount } from 'viem';
import type { ChainGateway } from './chainGateway.js';
import type { Address, Hex } from './types.js';

/** How long a sale authorisation stays valid: long enough for a bundle, short enough to be spent at once. */
const SALE_WINDOW_SECONDS = 600;

export interface SaleAuthorisation {
  deadline: bigint;
  signature: Hex;
}

/**
 * Signs the dex's sale authorisations (`DauthDex.purchase`) with the platform signer (the dex's `saleSigner`,
 * the paymaster's signer key). An authorisation binds slot, seller wallet, buyer wallet, price and the slot's
 * transfer count, so it can only ever move this slot once, to this buyer, at this price.
 */
export class SlotSaleSigner {
  constructor(
    private readonly gateway: Pick<ChainGateway, 'contracts' | 'chainId' | 'read' | 'latestTimestamp'>,
    private readonly signer: LocalAccount,
  ) {}

  async authorise(sale: {
    slot: bigint;
    seller: Address;
    buyer: Address;
    price: bigint;
  }): Promise<SaleAuthorisation> {
    const [transferCount, now] = await Promise.all([
      this.gateway.read('dex', 'transferCount', [sale.slot]),
      this.gateway.latestTimestamp(),
    ]);
    const deadline = BigInt(Math.max(now, Math.floor(Date.now() / 1000)) + SALE_WINDOW_SECONDS);
    const hash = getSlotSaleHash({
      dex: this.gateway.contracts.dex,
      chainId: this.gateway.chainId,
      ...sale,
      transferCount,
      deadline,
    });
    return { deadline, signature: await this.signer.signMessage({ message: { raw: hash } }) };
  }
}
