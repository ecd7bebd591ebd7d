import type { Logger } from 'pino';
import { AppError, forbidden, unauthorized } from '../../errors.js';
import type { Hash } from '../../chain/types.js';
import type { ContentLedgerStore } from '../../stores/contentLedgerStore.js';
import type { ChainEventIntents } from '../webhooks/chainEventIntents.js';
import { parseNativeAmount } from './amounts.js';
import type { ChainWatch } from './chainWatch.js';
import type { ContentTokenChain, PinTrio, SlotDirectory, UserWalletExecutor } from './ports.js';
import type { ProviderDirectory } from './providerDirectory.js';

export interface PurchaseInput {
  clientId: string;
  userDbkey: string;
  amount: string;
  cuid: string;
  pin: Partial<PinTrio>;
}

/** Who is buying: the bearer token's claims that matter here. */
export interface Buyer {
  userUuid: number;
  /** Access tokens name their app; login JWTs do not. */
  tokenClientId: string | undefined;
}

export interface PurchaseResult {
  txHash: string;
  tokenAmount: bigint;
  nativePaid: bigint;
  platformFee: bigint;
  providerReceived: bigint;
}

/**
 * `user_buy_content_token`: the slot's owner pays native currency from their own main wallet (W_SALT) in
 * one sponsored operation calling `buy(cuid, slot)`; the contract splits 15% / 85% in that transaction and
 * credits the slot 1 token unit per wei. The figures returned are the contract's own (its event).
 */
export class PurchaseService {
  constructor(
    private readonly providers: ProviderDirectory,
    private readonly slots: SlotDirectory,
    private readonly wallets: UserWalletExecutor,
    private readonly chain: ContentTokenChain,
    private readonly ledger: ContentLedgerStore,
    private readonly watch: ChainWatch,
    private readonly logger: Logger,
    /** `content.purchased`: an intent before the chain write, the event before the answer (docs/webhooks.md). */
    private readonly events?: Pick<ChainEventIntents, 'open' | 'complete' | 'abandon'>,
  ) {}

  async buy(buyer: Buyer, input: PurchaseInput): Promise<PurchaseResult> {
    const wei = parseNativeAmount(input.amount);
    if (!input.pin.pinHash || !input.pin.pinSalt || !input.pin.keyShareUser) {
      throw unauthorized(
        'pin_required',
        'pin_hash, pin_salt and key_share_user are required for this operation',
      );
    }
    if (buyer.tokenClientId !== undefined && buyer.tokenClientId !== input.clientId) {
      throw forbidden('client_mismatch', 'This access token was issued to another client');
    }
    const slot = await this.slots.findById(input.userDbkey);
    if (!slot || slot.clientId !== input.clientId) {
      throw new AppError(404, 'unknown_slot', 'No slot with this user_dbkey belongs to this client');
    }
    if (slot.ownerUuid !== buyer.userUuid)
      throw forbidden('not_slot_owner', 'Only the owner of this slot may buy for it');
    const provider = await this.providers.registered(input.cuid);
    if (!provider || provider.clientId !== input.clientId) {
      throw new AppError(404, 'unknown_cuid', 'This cuid is not registered to this client');
    }
    const wallet = await this.wallets.mainWalletOf(buyer.userUuid);
    if (!wallet) throw new AppError(404, 'wallet_not_found', 'Register a PIN first: the user has no wallet');
    const funds = await this.chain.nativeBalance(wallet);
    if (funds < wei) {
      throw new AppError(409, 'insufficient_funds', 'The main wallet does not hold enough native currency', {
        available: funds.toString(),
      });
    }

    const known = {
      cuid: input.cuid,
      slot_id: slot.id,
      slot_address: slot.contentAddress,
      user_id: String(buyer.userUuid),
      native_paid: wei.toString(),
    };
    const ticket = await this.events?.open(
      'content.purchased',
      input.clientId,
      known,
      { kind: 'purchase', cuid: input.cuid, slot: slot.contentAddress, buyer: wallet, value: wei.toString() },
      async () => this.watch.latest || (await this.chain.blockNumber()),
    );
    let txHash: Hash;
    let bought: Awaited<ReturnType<ContentTokenChain['purchaseOf']>>;
    try {
      ({ txHash } = await this.wallets.executeFromMainWallet(buyer.userUuid, input.pin, [
        this.chain.buyCall(input.cuid, slot.contentAddress, wei),
      ]));
      bought = await this.chain.purchaseOf(txHash, input.cuid, slot.contentAddress);
      await this.watch.landed(bought.blockNumber);
    } catch (err) {
      if (ticket) await this.events?.abandon(ticket, err);
      throw err;
    }
    // Durable before the answer; a crash before this line leaves the intent, which the recovery sweep
    // completes from the chain under the same webhook-id (docs/webhooks.md).
    if (ticket) {
      await this.events?.complete(
        ticket,
        {
          ...known,
          amount: bought.amount.toString(),
          platform_fee: bought.platformFee.toString(),
          provider_received: bought.providerAmount.toString(),
          tx_hash: txHash,
        },
        { txHash, logIndex: bought.logIndex },
      );
    }
    // Keep admission control's view current: the slot now holds more tokens.
    try {
      const figures = await this.chain.readSlot(input.cuid, slot.contentAddress, bought.blockNumber);
      await this.ledger.refreshBalance(input.cuid, slot.contentAddress, {
        balance: figures.balance,
        used: figures.used,
        block: figures.blockNumber,
      });
    } catch (err) {
      // Not fatal: admission refreshes from the chain by itself when a reservation does not fit.
      this.logger.warn({ err }, 'could not refresh the content balance after a purchase');
    }
    this.logger.info(
      { txHash, cuid: input.cuid, slot: slot.id, wei: wei.toString() },
      'content tokens bought',
    );
    return {
      txHash,
      tokenAmount: bought.amount,
      nativePaid: bought.amount,
      platformFee: bought.platformFee,
      providerReceived: bought.providerAmount,
    };
  }
}
