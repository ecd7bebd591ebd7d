import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { checksumAddress, parseAddress } from '../../chain/address.js';
import type { Address } from '../../chain/types.js';
import { AppError, conflict, forbidden, notFound, OperationReverted } from '../../errors.js';
import type { ContentProviderStore } from '../../stores/contentProviderStore.js';
import type { ChainWatch } from './chainWatch.js';
import { KeyedMutex } from './keyedMutex.js';
import type { ContentTokenChain } from './ports.js';
import type { ProviderDirectory } from './providerDirectory.js';
import type { ProviderService } from './providerService.js';
import type { ChainEventIntents } from '../webhooks/chainEventIntents.js';

/**
 * Settlement against `used_balances` (spec rule 4, decisions §6): only when the platform enabled release
 * for the cuid; pays `owner_addr` (used − already released) × release_per / 100 wei from the cuid's pool,
 * each unit of usage once (the contract keeps the released counter). Also the platform's two switches:
 * enabling release and funding the pool.
 */
export interface SettlementOptions {
  /** Slots one terms change settles in its own transaction; more are settled in transactions before it (400). */
  slotsPerSettlement?: number;
}

/** Readings of a cuid's slots before a terms change gives up while usage keeps landing on new slots. */
const AMEND_ATTEMPTS = 5;
/** Concurrent `releasableOf` reads while a terms change reads a cuid's slots. */
const READS_AT_ONCE = 32;

export class SettlementService {
  readonly #mutex = new KeyedMutex();
  readonly #slotsPerSettlement: number;

  constructor(
    private readonly providers: ProviderDirectory,
    private readonly providerService: ProviderService,
    private readonly chain: ContentTokenChain,
    private readonly watch: ChainWatch,
    private readonly logger: Logger,
    private readonly terms: Pick<ContentProviderStore, 'freezeTerms' | 'recordTermsChange'>,
    private readonly slotsOf: (cuid: string) => Promise<string[]>,
    options: SettlementOptions = {},
    /** `content.released`: an intent before the chain write, the event before the answer (docs/webhooks.md). */
    private readonly events?: Pick<ChainEventIntents, 'open' | 'complete' | 'abandon'>,
  ) {
    this.#slotsPerSettlement = options.slotsPerSettlement ?? 400;
  }

  async release(
    userUuid: number,
    input: { clientId: string; cuid: string; slot: string },
  ): Promise<{ releasedAmount: bigint; txHash: string }> {
    const slot = parseAddress(input.slot, 'slot', 'slot must be the slot address (0x-prefixed, 20 bytes)');
    await this.providerService.requireClientOwner(input.clientId, userUuid);
    const provider = await this.providers.registered(input.cuid);
    if (!provider || provider.clientId !== input.clientId) {
      throw notFound('unknown_cuid', 'This cuid is not registered to this client');
    }
    return this.#mutex.run(`${input.cuid}\u0000${slot}`, async () => {
      const onChain = await this.chain.readProvider(input.cuid);
      if (!onChain?.releaseEnabled) {
        throw forbidden('release_disabled', 'The platform has not enabled release for this cuid');
      }
      const { usage, amount } = await this.chain.releasable(input.cuid, slot);
      if (usage === 0n)
        throw conflict('nothing_to_release', 'All usage of this slot has been released already');
      if (amount > onChain.pool) {
        throw new AppError(
          409,
          'insufficient_pool',
          'The settlement pool of this cuid cannot cover this release',
          {
            required: amount.toString(),
            pool: onChain.pool.toString(),
          },
        );
      }
      const ticket = await this.events?.open(
        'content.released',
        input.clientId,
        { cuid: input.cuid, slot_address: slot },
        { kind: 'release', cuid: input.cuid, slot },
        async () => this.watch.latest || (await this.chain.blockNumber()),
      );
      try {
        const result = await this.chain.release(input.cuid, slot);
        await this.watch.landed(result.blockNumber);
        this.logger.info(
          {
            cuid: input.cuid,
            slot,
            usage: result.usage.toString(),
            paid: result.paid.toString(),
            tx: result.txHash,
          },
          'content usage released',
        );
        if (ticket) {
          await this.events?.complete(
            ticket,
            {
              cuid: input.cuid,
              slot_address: slot,
              usage: result.usage.toString(),
              amount: result.paid.toString(),
              tx_hash: result.txHash,
            },
            result,
          );
        }
        return { releasedAmount: result.paid, txHash: result.txHash };
      } catch (err) {
        if (ticket) await this.events?.abandon(ticket, err);
        switch (err instanceof OperationReverted ? err.revert.name : undefined) {
          case 'ReleaseDisabled':
            throw forbidden('release_disabled', 'The platform has not enabled release for this cuid');
          case 'NothingToRelease':
            throw conflict('nothing_to_release', 'All usage of this slot has been released already');
          case 'InsufficientPool':
            throw conflict('insufficient_pool', 'The settlement pool of this cuid cannot cover this release');
        }
        throw err;
      }
    });
  }

  /** Admin: turns release on or off for a registered cuid. */
  async setReleaseEnabled(cuid: string, enabled: boolean): Promise<{ txHash: string }> {
    await this.#requireRegistered(cuid);
    // Frozen before the switch: from the moment release can pay, the terms cannot move under it.
    if (enabled) await this.terms.freezeTerms(cuid, Date.now());
    const write = await this.chain.setReleaseEnabled(cuid, enabled);
    await this.watch.landed(write.blockNumber);
    this.logger.info({ cuid, enabled, tx: write.txHash }, 'content release switch changed');
    return { txHash: write.txHash };
  }

  /**
   * Admin: the platform approves and applies a change of a cuid's `release_per` / `owner_addr`
   * (decisions §7). One `amendTerms` transaction settles every slot's outstanding usage at the terms it was
   * recorded under and then registers the new terms; the contract refuses it (`UnsettledUsage`) if usage
   * landed on a slot this reading found settled, and the service reads again. So no usage recorded before
   * a change is ever paid at the new terms, whatever replica records it, whenever. The pool must cover
   * that settlement (409 `insufficient_pool`, nothing changes).
   */
  async amendTerms(
    cuid: string,
    next: { releasePer: number; ownerAddr: string },
  ): Promise<{ txHash: string; settled: bigint; slots: number }> {
    if (!Number.isInteger(next.releasePer) || next.releasePer < 0 || next.releasePer > 100) {
      throw new AppError(400, 'invalid_request', 'release_per must be an integer from 0 to 100', {
        field: 'release_per',
      });
    }
    const ownerAddr = parseAddress(
      next.ownerAddr,
      'owner_addr',
      'owner_addr must be a non-zero 20-byte address',
    );
    if (/^0x0{40}$/.test(ownerAddr)) {
      throw new AppError(400, 'invalid_request', 'owner_addr must be a non-zero 20-byte address', {
        field: 'owner_addr',
      });
    }
    const provider = await this.providers.registered(cuid);
    if (!provider) throw notFound('unknown_cuid', 'This cuid is not registered');
    return this.#mutex.run(`terms\u0000${cuid}`, async () => {
      const previous = await this.chain.readProvider(cuid);
      if (!previous) throw notFound('unknown_cuid', 'This cuid is not registered');
      let settled = 0n;
      let slots = 0;
      for (let attempt = 1; attempt <= AMEND_ATTEMPTS; attempt++) {
        let due = await this.#due(cuid);
        // More slots than one transaction carries: the excess is settled first, at the same (old) terms.
        while (due.slots.length > this.#slotsPerSettlement) {
          const chunk = due.slots.slice(0, this.#slotsPerSettlement);
          const write = await this.#settling(cuid, () => this.chain.settle(cuid, chunk));
          await this.watch.landed(write.blockNumber);
          settled += write.paid;
          slots += chunk.length;
          due = await this.#due(cuid);
        }
        try {
          const write = await this.#settling(cuid, () =>
            this.chain.amendTerms({ cuid, releasePer: next.releasePer, ownerAddr, settle: due.slots }),
          );
          await this.watch.landed(write.blockNumber);
          settled += write.paid;
          slots += due.slots.length;
          await this.terms.recordTermsChange({
            id: randomUUID(),
            cuid,
            clientId: provider.clientId,
            previous: { releasePer: previous.releasePer, ownerAddr: previous.ownerAddr },
            next: { releasePer: next.releasePer, ownerAddr },
            txHash: write.txHash,
            appliedAt: Date.now(),
          });
          this.providers.forget(cuid);
          this.logger.info(
            { cuid, releasePer: next.releasePer, settled: settled.toString(), slots, tx: write.txHash },
            'content settlement terms changed by the platform',
          );
          return { txHash: write.txHash, settled, slots };
        } catch (err) {
          if (!(err instanceof OperationReverted && err.revert.name === 'UnsettledUsage')) throw err;
          this.logger.info({ cuid, attempt }, 'usage landed while the terms were settled; reading again');
        }
      }
      throw new AppError(
        503,
        'overloaded',
        'Usage of this cuid keeps landing while its terms are settled; try again shortly',
        { retryAfterSeconds: 5 },
      );
    });
  }

  /** The slots of `cuid` with unsettled usage now, and what settling them at the current terms pays. */
  async #due(cuid: string): Promise<{ slots: Address[]; owed: bigint; pool: bigint }> {
    const onChain = await this.chain.readProvider(cuid);
    if (!onChain) throw notFound('unknown_cuid', 'This cuid is not registered');
    const known = (await this.slotsOf(cuid)).map((slot) => checksumAddress(slot));
    const slots: Address[] = [];
    let owed = 0n;
    for (let i = 0; i < known.length; i += READS_AT_ONCE) {
      const part = known.slice(i, i + READS_AT_ONCE);
      const figures = await Promise.all(part.map((slot) => this.chain.releasable(cuid, slot)));
      figures.forEach(({ usage, amount }, j) => {
        if (usage === 0n) return;
        slots.push(part[j]!);
        owed += amount;
      });
    }
    if (owed > onChain.pool) {
      throw new AppError(
        409,
        'insufficient_pool',
        'The pool cannot settle the usage recorded under the current terms',
        {
          required: owed.toString(),
          pool: onChain.pool.toString(),
        },
      );
    }
    return { slots, owed, pool: onChain.pool };
  }

  /** A settling write, its pool refusal in the API's words. */
  async #settling<T>(cuid: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof OperationReverted && err.revert.name === 'InsufficientPool') {
        throw conflict(
          'insufficient_pool',
          `The pool of ${cuid} cannot settle the usage recorded under the current terms`,
        );
      }
      throw err;
    }
  }

  /** Admin: adds `amount` wei to the cuid's settlement pool, paid by the platform's operator wallet. */
  async fundPool(cuid: string, amount: bigint): Promise<{ txHash: string; pool: bigint }> {
    await this.#requireRegistered(cuid);
    try {
      const write = await this.chain.fundPool(cuid, amount);
      await this.watch.landed(write.blockNumber);
      this.logger.info(
        { cuid, amount: amount.toString(), tx: write.txHash },
        'content settlement pool funded',
      );
      return { txHash: write.txHash, pool: write.pool };
    } catch (err) {
      if (err instanceof AppError && err.status === 422) {
        throw new AppError(
          409,
          'insufficient_funds',
          "The platform's operator wallet cannot pay this amount",
        );
      }
      throw err;
    }
  }

  async #requireRegistered(cuid: string): Promise<void> {
    if (!(await this.providers.registered(cuid)))
      throw notFound('unknown_cuid', 'This cuid is not registered');
  }
}
