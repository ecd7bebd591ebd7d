import { createHash, randomBytes } from 'node:crypto';
import { sameAddress } from '../../chain/address.js';
import { AppError, conflict, forbidden, isOutcomeUnknown, notFound } from '../../errors.js';
import type { Address, Hash } from '../../chain/types.js';
import type { Slot, SlotStore } from '../../stores/slotStore.js';
import type { TicketOrigin, TransferTicket, TransferTicketStore } from '../../stores/transferTicketStore.js';
import type { UserStore } from '../../stores/userStore.js';
import type { WalletStore } from '../../stores/walletStore.js';
import { handoverPending } from '../custody/contentWallets.js';
import type { AppResolver } from './appResolver.js';
import type { SlotLedger } from './slotLedger.js';
import { walletRequired } from './slotService.js';

/** The four values a transfer ticket binds (spec endpoint 8's body without `state`). */
export interface TransferBinding {
  cuId: string;
  fromUuid: number;
  toUuid: number;
  metaIdx: number;
}

export interface IssuedTicket {
  /** The ticket: presented once as `state` to `exchange_token_owner`. Shown once, stored hashed. */
  state: string;
  expiresAt: number;
  slotId: string;
}

export interface TransferResult {
  txHash: Hash | undefined;
  userOpHash: Hash | undefined;
  slot: Slot;
  fromAddress: Address;
  toAddress: Address;
}

/**
 * The chain step of a transfer: moves the slot from `from`'s main wallet to `to`'s on the dex. By
 * default the platform operator's `init_self`; a marketplace sale passes the buyer's paid `purchase`.
 * Same failure contract as `SlotLedger.moveSlot`.
 */
export type SlotMover = (move: {
  from: Address;
  slotId: bigint;
  to: Address;
}) => Promise<{ txHash: Hash; userOpHash: Hash }>;

/** Runs after a slot changed owner (e.g. the marketplace withdraws its open listing). */
export type TransferListener = (event: { slot: Slot; fromUuid: number; toUuid: number }) => Promise<void>;

export interface SlotTransferOptions {
  /** Lifetime of a ticket; 10 minutes by default. */
  ticketTtlMs?: number;
  /** A chain step in flight for longer than this is taken to have crashed and is reconciled. */
  staleAfterMs?: number;
  logger?: { warn(obj: object, msg: string): void };
}

const hashTicket = (state: string) => createHash('sha256').update(state, 'utf8').digest('hex');

const ticketError = {
  invalid: () => new AppError(401, 'invalid_ticket', 'The transfer ticket (state) is not valid'),
  expired: () => new AppError(401, 'ticket_expired', 'The transfer ticket (state) has expired'),
  used: () => conflict('ticket_used', 'The transfer ticket (state) has already been used'),
  inUse: () => conflict('ticket_in_use', 'The transfer ticket (state) is being used by another request'),
  mismatch: () =>
    forbidden(
      'ticket_mismatch',
      'The transfer ticket (state) was issued for other values of cu_id, from_uuid, to_uuid or meta_idx',
    ),
};

/**
 * Slot ownership transfers (spec endpoint 8). A transfer needs a single-use ticket that binds
 * cu_id, from_uuid, to_uuid and meta_idx (and, inside, the slot those named when it was issued).
 * Consuming it is a conditional UPDATE, so of any number of presentations exactly one proceeds;
 * a failed chain step gives the ticket back and changes nothing. The dex write goes through the
 * platform operator (`init_self(fromWallet, slot, toWallet)`, the users' main wallets); only after
 * the chain confirmed does the row change owner, take its place at the end of the new owner's
 * list (meta_idx) and count the transfer (tr_cnt).
 */
export class SlotTransferService {
  readonly #ticketTtlMs: number;
  readonly #staleAfterMs: number;
  readonly #listeners: TransferListener[] = [];
  readonly #logger: NonNullable<SlotTransferOptions['logger']>;

  constructor(
    private readonly slots: SlotStore,
    private readonly tickets: TransferTicketStore,
    private readonly wallets: WalletStore,
    private readonly users: UserStore,
    private readonly ledger: SlotLedger,
    readonly apps: AppResolver,
    options: SlotTransferOptions = {},
  ) {
    this.#ticketTtlMs = options.ticketTtlMs ?? 10 * 60_000;
    this.#staleAfterMs = options.staleAfterMs ?? 120_000;
    this.#logger = options.logger ?? { warn: () => undefined };
  }

  onTransferred(listener: TransferListener): void {
    this.#listeners.push(listener);
  }

  /** Issues a ticket for moving the slot at `metaIdx` of `fromUuid`'s slots of the app to `toUuid`. */
  async issueTicket(binding: TransferBinding, origin: TicketOrigin): Promise<IssuedTicket> {
    if (binding.fromUuid === binding.toUuid) {
      throw new AppError(400, 'same_owner', 'from_uuid and to_uuid are the same user', { field: 'to_uuid' });
    }
    const clientId = await this.#resolveApp(binding.cuId);
    const slot = await this.slots.findByPlace(clientId, binding.fromUuid, binding.metaIdx);
    if (!slot || slot.state === 'pending') {
      throw notFound('slot_not_found', 'from_uuid has no slot of this app at meta_idx');
    }
    if (!(await this.users.findById(binding.toUuid)))
      throw notFound('user_not_found', 'to_uuid names no user');
    await this.#requireContentWalletFollows(slot);
    const state = randomBytes(32).toString('base64url');
    const now = Date.now();
    const expiresAt = now + this.#ticketTtlMs;
    await this.tickets.insert({
      ticketHash: hashTicket(state),
      cuId: binding.cuId,
      clientId,
      fromUuid: binding.fromUuid,
      toUuid: binding.toUuid,
      metaIdx: binding.metaIdx,
      slotId: slot.id,
      origin,
      createdAt: now,
      expiresAt,
    });
    return { state, expiresAt, slotId: slot.id };
  }

  /** `exchange_token_owner`: consumes the ticket and moves the slot on chain, then in the database. */
  async exchange(state: string, binding: TransferBinding, mover?: SlotMover): Promise<TransferResult> {
    const hash = hashTicket(state);
    const ticket = await this.tickets.find(hash);
    if (!ticket) throw ticketError.invalid();
    const clientId = await this.apps.resolve(binding.cuId);
    if (
      clientId !== ticket.clientId ||
      binding.fromUuid !== ticket.fromUuid ||
      binding.toUuid !== ticket.toUuid ||
      binding.metaIdx !== ticket.metaIdx
    ) {
      throw ticketError.mismatch();
    }
    const since = await this.#claim(ticket);
    let done = false;
    try {
      const result = await this.#transfer(ticket, mover);
      done = true;
      return result;
    } finally {
      if (!done) await this.tickets.release(hash, since).catch(() => undefined);
    }
  }

  /** Claims the ticket (or takes over a crashed claim); returns the claim's timestamp. */
  async #claim(ticket: TransferTicket): Promise<number> {
    const now = Date.now();
    if (ticket.status === 'used') throw ticketError.used();
    if (ticket.status === 'consuming') {
      if (now - ticket.statusSince < this.#staleAfterMs) throw ticketError.inUse();
      if (await this.tickets.reclaim(ticket.ticketHash, ticket.statusSince, now)) return now;
      throw ticketError.inUse();
    }
    if (ticket.expiresAt <= now) throw ticketError.expired();
    if (await this.tickets.claim(ticket.ticketHash, now)) return now;
    const again = await this.tickets.find(ticket.ticketHash);
    if (again?.status === 'used') throw ticketError.used();
    if (again?.status === 'consuming') throw ticketError.inUse();
    throw ticketError.expired();
  }

  async #transfer(ticket: TransferTicket, mover?: SlotMover): Promise<TransferResult> {
    const [fromWallet, toWallet] = await Promise.all([
      this.wallets.mainWallet(ticket.fromUuid),
      this.wallets.mainWallet(ticket.toUuid),
    ]);
    if (!fromWallet || !toWallet) throw walletRequired();
    let slot = await this.slots.findById(ticket.slotId);
    if (slot?.state === 'moving') {
      // A previous attempt stopped mid-way (this ticket's, reclaimed, or another's): ask the chain.
      const settled = await this.reconcile(slot);
      if (settled.state === 'moving')
        throw conflict('slot_busy', 'Another transfer of this slot is in progress');
      if (settled.ownerUuid === ticket.toUuid && settled.ownerUuid !== slot.ownerUuid) {
        await this.tickets.markUsed(ticket.ticketHash, { txHash: '', userOpHash: '' });
        return {
          txHash: undefined,
          userOpHash: undefined,
          slot: settled,
          fromAddress: fromWallet.address,
          toAddress: toWallet.address,
        };
      }
      slot = settled;
    }
    if (
      !slot ||
      slot.state !== 'active' ||
      slot.ownerUuid !== ticket.fromUuid ||
      slot.metaIdx !== ticket.metaIdx ||
      slot.clientId !== ticket.clientId
    ) {
      throw conflict('slot_changed', 'The slot changed owner or place since the ticket was issued');
    }
    // Again at use: a ticket issued before this rule, or before the wallet's record said so.
    await this.#requireContentWalletFollows(slot);
    const movingSince = Date.now();
    if (
      !(await this.slots.transition(
        slot.id,
        { state: 'active', ownerUuid: ticket.fromUuid },
        { state: 'moving', since: movingSince },
      ))
    ) {
      throw conflict('slot_busy', 'Another transfer of this slot is in progress');
    }
    let receipt;
    try {
      const move = { from: fromWallet.address, slotId: BigInt(slot.id), to: toWallet.address };
      receipt = mover ? await mover(move) : await this.ledger.moveSlot(move.from, move.slotId, move.to);
    } catch (err) {
      if (isOutcomeUnknown(err)) {
        // The move may have landed: keep the slot marked moving. The ticket is given back, so
        // presenting it again later asks the chain (reconcile) and finishes or undoes the move.
        this.#logger.warn({ slotId: slot.id }, 'slot transfer outcome unknown; left for reconciliation');
        throw err;
      }
      await this.slots.transition(
        slot.id,
        { state: 'moving', since: movingSince },
        { state: 'active', since: Date.now() },
      );
      throw err;
    }
    const moved = await this.slots.completeMove(slot.id, ticket.fromUuid, ticket.toUuid, {
      txHash: receipt.txHash,
    });
    if (!moved)
      throw new AppError(500, 'internal_error', 'The slot moved on chain but its record changed meanwhile');
    await this.tickets.markUsed(ticket.ticketHash, receipt);
    await this.#notify(moved, ticket.fromUuid, ticket.toUuid);
    return {
      txHash: receipt.txHash,
      userOpHash: receipt.userOpHash,
      slot: moved,
      fromAddress: fromWallet.address,
      toAddress: toWallet.address,
    };
  }

  /**
   * Settles a slot left `moving` by a step that stopped (stale): the chain decides. If the dex
   * still names the recorded owner's wallet the slot goes back to active; if it names another
   * user's main wallet the move is completed in the database. A fresh `moving` slot is returned as is.
   */
  async reconcile(slot: Slot): Promise<Slot> {
    if (slot.state !== 'moving' || Date.now() - slot.stateSince < this.#staleAfterMs) return slot;
    const onChain = await this.ledger.ownerOf(BigInt(slot.id));
    const ownerWallet = await this.wallets.mainWallet(slot.ownerUuid);
    if (onChain === undefined || sameAddress(onChain, ownerWallet?.address)) {
      await this.slots.transition(
        slot.id,
        { state: 'moving', since: slot.stateSince },
        { state: 'active', since: Date.now() },
      );
    } else {
      const holder = await this.wallets.findByAddress(onChain);
      if (holder?.kind === 'main') {
        const moved = await this.slots.completeMove(slot.id, slot.ownerUuid, holder.userUuid, {
          reason: 'reconciled',
        });
        if (moved) await this.#notify(moved, slot.ownerUuid, holder.userUuid);
      } else {
        this.#logger.warn({ slotId: slot.id }, 'slot owner on chain is not a known main wallet; left moving');
      }
    }
    return (await this.slots.findById(slot.id)) ?? slot;
  }

  /**
   * 409 `content_wallet_handover_pending` while the slot's content wallet is a legacy one still owned by
   * its first owner's key (decisions §7): moved now, it would stay with that key instead of following the
   * slot; the key holder's next PIN use hands it to the dex (custody's `handOverLegacy`).
   */
  async #requireContentWalletFollows(slot: Slot): Promise<void> {
    if ((await this.wallets.findByAddress(slot.contentAddress))?.kind === 'slot') throw handoverPending();
  }

  async #resolveApp(cuId: string): Promise<string> {
    const clientId = await this.apps.resolve(cuId);
    if (clientId === undefined) throw notFound('unknown_cu_id', 'cu_id names no registered app');
    return clientId;
  }

  async #notify(slot: Slot, fromUuid: number, toUuid: number): Promise<void> {
    for (const listener of this.#listeners) {
      await listener({ slot, fromUuid, toUuid }).catch((err: unknown) =>
        this.#logger.warn({ err, slotId: slot.id }, 'transfer listener failed'),
      );
    }
  }
}
