import { parseAddress } from '../../chain/address.js';
import type { Address } from '../../chain/types.js';
import { AppError, notFound } from '../../errors.js';
import type { ContentProviderStore } from '../../stores/contentProviderStore.js';
import type { SlotDirectory } from './ports.js';
import type { ProviderDirectory } from './providerDirectory.js';
import type { SlotBalanceReader, SlotReading } from './slotBalanceReader.js';

const CHECKSUM_CACHE_LIMIT = 100_000;

/**
 * `GET balance_adex/<slot_address>?cuid=` (public, spec Authentication §5): the slot's on-chain `balance` and
 * `used_balances` of a cuid. Without `cuid`, the cuid registered by the slot's app is used (400 when the
 * app registered several).
 */
export class BalanceQueryService {
  readonly #checksummed = new Map<string, Address>();

  constructor(
    private readonly reader: SlotBalanceReader,
    private readonly providers: ProviderDirectory,
    private readonly providerStore: ContentProviderStore,
    private readonly slots: SlotDirectory,
  ) {}

  async query(slotAddress: string, cuidInput: string | undefined): Promise<SlotReading> {
    const slot = this.#address(slotAddress);
    let cuid = cuidInput;
    if (cuid === undefined || cuid === '') {
      const known = await this.slots.findByContentAddress(slot);
      if (!known) throw notFound('unknown_slot', 'No slot has this address; name the cuid with ?cuid=');
      const cuids = (await this.providerStore.listProvidersByClient(known.clientId)).filter(
        (p) => p.state === 'registered',
      );
      if (cuids.length === 0) throw notFound('unknown_cuid', "The slot's app has not registered a cuid");
      if (cuids.length > 1) {
        throw new AppError(
          400,
          'cuid_required',
          "The slot's app registered several cuids; name one with ?cuid=",
          {
            field: 'cuid',
          },
        );
      }
      cuid = cuids[0]!.cuid;
    } else if (!(await this.providers.registered(cuid))) {
      throw notFound('unknown_cuid', 'This cuid is not registered');
    }
    return this.reader.read(cuid, slot);
  }

  /**
   * `query`'s answer when it is at hand without waiting: a named cuid already known to be registered, a slot
   * address seen before, and figures cached for the latest block (the same freshness as `query`). Undefined
   * otherwise, then `query` answers (and raises whatever error applies). One object per (cuid, slot, block).
   */
  queryNow(slotAddress: string, cuid: string | undefined): SlotReading | undefined {
    if (cuid === undefined || cuid === '' || !this.providers.registeredNow(cuid)) return undefined;
    const slot = this.#checksummed.get(slotAddress);
    if (!slot) return undefined;
    return this.reader.readNow(cuid, slot);
  }

  #address(text: string): Address {
    const cached = this.#checksummed.get(text);
    if (cached) return cached;
    const address = parseAddress(
      text,
      'slot_address',
      'The slot address must be 0x followed by 40 hex digits',
    );
    if (this.#checksummed.size >= CHECKSUM_CACHE_LIMIT) this.#checksummed.clear();
    this.#checksummed.set(text, address);
    return address;
  }
}
