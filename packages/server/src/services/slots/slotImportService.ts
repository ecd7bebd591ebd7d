import { parseAddress, sameAddress } from '../../chain/address.js';
import { isOutcomeUnknown } from '../../errors.js';
import { normaliseEmail } from '../accounts/accountService.js';
import type { Slot, SlotStore } from '../../stores/slotStore.js';
import type { UserStore } from '../../stores/userStore.js';
import type { WalletStore } from '../../stores/walletStore.js';
import type { ClientDirectory } from '../oauth/clientDirectory.js';
import { isSlotId } from './slotId.js';
import type { SlotImportRecord } from './slotImportFormat.js';
import type { SlotLedger } from './slotLedger.js';

export type ImportStatus = 'imported' | 'unchanged' | 'updated' | 'failed';

export interface ImportResult {
  line: number;
  id: string;
  status: ImportStatus;
  error?: string;
  owner_uuid?: number;
  client_id?: string;
  meta_idx?: number;
  content_address?: string;
}

export interface ImportSummary {
  success: boolean;
  imported: number;
  updated: number;
  unchanged: number;
  failed: number;
  results: ImportResult[];
}

/**
 * Imports slots issued before this service (`dauth slots import`). Each slot keeps its id, is
 * marked imported (its id then travels as a JSON string), joins the end of its owner's list for
 * the app, and its ownership is recorded on chain with `buy_slot` to the owner's main wallet when
 * the dex does not know it yet. Idempotent: running the same file again changes nothing; a record
 * whose id is already a different slot fails without touching it. One record's failure does not
 * stop the others.
 */
export class SlotImportService {
  constructor(
    private readonly slots: SlotStore,
    private readonly wallets: WalletStore,
    private readonly users: UserStore,
    private readonly clients: ClientDirectory,
    private readonly ledger: SlotLedger,
  ) {}

  async importAll(records: SlotImportRecord[]): Promise<ImportSummary> {
    const results: ImportResult[] = [];
    for (const record of records) {
      try {
        results.push(await this.#importOne(record));
      } catch (err) {
        results.push({
          line: record.line,
          id: record.id,
          status: 'failed',
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    const count = (status: ImportStatus) => results.filter((r) => r.status === status).length;
    return {
      success: count('failed') === 0,
      imported: count('imported'),
      updated: count('updated'),
      unchanged: count('unchanged'),
      failed: count('failed'),
      results,
    };
  }

  async #importOne(record: SlotImportRecord): Promise<ImportResult> {
    if (!isSlotId(record.id)) throw new Error('id must be a positive decimal integer of at most 19 digits');
    const owner =
      record.ownerUuid !== undefined
        ? await this.users.findById(record.ownerUuid)
        : await this.users.findByEmail(normaliseEmail(record.ownerEmail ?? ''));
    if (!owner) throw new Error('the owner is not a registered user');
    if (record.ownerUuid !== undefined && record.ownerEmail !== undefined) {
      if (normaliseEmail(record.ownerEmail) !== owner.email)
        throw new Error('owner_uuid and owner_email name different users');
    }
    const client = await this.clients.findClient(record.clientId);
    if (!client) throw new Error('client_id is not a registered app');
    const main = await this.wallets.mainWallet(owner.userUuid);
    if (!main) throw new Error('wallet_required: the owner has no wallet yet; register a PIN first');
    const given = record.contentAddress === undefined ? undefined : checksummed(record.contentAddress);
    const contentAddress = given ?? (await this.ledger.contentWalletAddress(BigInt(record.id)));
    const base = { line: record.line, id: record.id, owner_uuid: owner.userUuid, client_id: client.clientId };

    const existing = await this.slots.findById(record.id);
    if (existing) {
      if (
        !existing.imported ||
        existing.clientId !== client.clientId ||
        existing.ownerUuid !== owner.userUuid
      ) {
        throw new Error('id_taken: a different slot already has this id');
      }
      // A derived address is compared only when given: slots imported before content wallets were
      // dex-owned keep the EOA-derived address they were imported with.
      if (given !== undefined && !sameAddress(existing.contentAddress, contentAddress)) {
        throw new Error('id_taken: this slot was imported with another content_address');
      }
      let status: ImportStatus = 'unchanged';
      if (existing.state === 'pending') {
        await this.#record(
          existing,
          main.address,
          record.contentAddress === undefined ? this.ledger.contentWalletOwner : undefined,
        );
        status = 'imported';
      }
      const nickname = record.tokenNickname ?? existing.tokenNickname;
      const trCnt = record.trCnt ?? existing.trCnt;
      if (nickname !== existing.tokenNickname || trCnt !== existing.trCnt) {
        await this.slots.updateImported(existing.id, { tokenNickname: nickname, trCnt });
        if (status === 'unchanged') status = 'updated';
      }
      return { ...base, status, meta_idx: existing.metaIdx, content_address: existing.contentAddress };
    }

    const now = Date.now();
    for (let attempt = 0; attempt < 5; attempt++) {
      const slot: Slot = {
        id: record.id,
        clientId: client.clientId,
        ownerUuid: owner.userUuid,
        contentAddress: contentAddress as Slot['contentAddress'],
        trCnt: record.trCnt ?? 0,
        tokenNickname: (record.tokenNickname ?? owner.nickname).slice(0, 100),
        metaIdx: await this.slots.countByOwner(client.clientId, owner.userUuid),
        imported: true,
        state: 'pending',
        stateSince: now,
        createdAt: now,
        updatedAt: now,
      };
      if (await this.slots.insert(slot)) {
        await this.#record(
          slot,
          main.address,
          record.contentAddress === undefined ? this.ledger.contentWalletOwner : undefined,
        );
        return { ...base, status: 'imported', meta_idx: slot.metaIdx, content_address: slot.contentAddress };
      }
      if (await this.slots.findById(record.id)) return this.#importOne(record);
    }
    throw new Error('could not place the slot among the owner’s slots; retry');
  }

  /**
   * Records the pending slot on chain (unless the dex already names the owner's wallet) and
   * activates it; the content wallet row is added only for a derived content address (a given one
   * has no known owner EOA). The dex naming another wallet fails the record and drops the row.
   */
  async #record(
    slot: Slot,
    ownerWallet: `0x${string}`,
    derivedFrom: `0x${string}` | undefined,
  ): Promise<void> {
    let onChain: string | undefined;
    try {
      onChain = await this.ledger.ownerOf(BigInt(slot.id));
      if (onChain === undefined) await this.ledger.buySlot(ownerWallet, BigInt(slot.id), slot.contentAddress);
      else if (!sameAddress(onChain, ownerWallet)) {
        await this.slots.deletePending(slot.id, slot.stateSince);
        throw new Error(`on chain the slot belongs to ${onChain}, not the owner's wallet ${ownerWallet}`);
      }
    } catch (err) {
      if (!isOutcomeUnknown(err)) {
        await this.slots.deletePending(slot.id, slot.stateSince);
      }
      throw err;
    }
    await this.slots.activate(slot.id, slot.stateSince, async (trx) => {
      if (!derivedFrom || (await this.wallets.findByAddress(slot.contentAddress, trx))) return;
      await this.wallets.insert(
        {
          address: slot.contentAddress,
          userUuid: slot.ownerUuid,
          kind: 'content',
          salt: BigInt(slot.id),
          initialOwner: derivedFrom,
          owner: derivedFrom,
          deployed: false,
          createdAt: slot.createdAt,
        },
        trx,
      );
    });
  }
}

/**
 * A given content_address in its checksum form; anything else fails the record. (The checksum of a
 * mixed-case address is not checked: `parseAddress` checks the form only, as `checksumAddress` did.)
 */
function checksummed(address: string): string {
  try {
    return parseAddress(address, 'content_address');
  } catch {
    throw new Error('content_address is not an address');
  }
}
