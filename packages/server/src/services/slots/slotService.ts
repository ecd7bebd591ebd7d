import { sameAddress } from '../../chain/address.js';
import { AppError, chainUnavailable, conflict, isOutcomeUnknown } from '../../errors.js';
import type { Address } from '../../chain/types.js';
import type { Slot, SlotStore } from '../../stores/slotStore.js';
import type { UserStore } from '../../stores/userStore.js';
import type { Wallet, WalletStore } from '../../stores/walletStore.js';
import { newSlotId } from './slotId.js';
import type { SlotLedger } from './slotLedger.js';

/** The slot record as routes render it. */
export type { Slot };

/** What `ensureSlot` did: made a new slot, found the user's slot, or finished one a crash left pending. */
export type EnsureSlotResult = 'created' | 'existing' | 'recovered';

export interface SlotServiceOptions {
  /** A pending creation older than this is taken to have crashed and is taken over. */
  pendingTakeoverMs?: number;
  /** How long a request waits for another request's creation of the same slot. */
  pendingWaitMs?: number;
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

const NO_LOGGER = { warn: () => undefined, error: () => undefined };

export const walletRequired = () =>
  new AppError(409, 'wallet_required', 'wallet_required: the user has no wallet yet; register a PIN first', {
    hint: 'POST /v1/pin/register creates the wallet',
  });

/**
 * Slots: a user's OAuth rights for one app, with a content wallet fixed at creation and an owner
 * recorded on chain by the dex. Creation is recoverable rather than distributed-atomic: the row is
 * written `pending` first (which also settles concurrent creations through the unique index), the
 * dex write follows, and the row turns `active` with its content wallet row only once the chain
 * confirmed. A definite chain failure deletes the pending row; an unknown outcome leaves it pending
 * and invisible, and the next authorize of that user for that app finishes it from the chain's answer.
 */
export class SlotService {
  readonly #pendingTakeoverMs: number;
  readonly #pendingWaitMs: number;
  readonly #logger: NonNullable<SlotServiceOptions['logger']>;

  constructor(
    private readonly slots: SlotStore,
    private readonly wallets: WalletStore,
    private readonly users: UserStore,
    private readonly ledger: SlotLedger,
    options: SlotServiceOptions = {},
  ) {
    this.#pendingTakeoverMs = options.pendingTakeoverMs ?? 60_000;
    this.#pendingWaitMs = options.pendingWaitMs ?? 15_000;
    this.#logger = options.logger ?? NO_LOGGER;
  }

  /**
   * The user's slot for the app (their first, meta_idx 0), created on first use. A user without a
   * main wallet cannot get a slot: 409 `wallet_required`. The chain down: 503, and no row remains.
   */
  async ensureSlot(userUuid: number, clientId: string): Promise<{ slot: Slot; result: EnsureSlotResult }> {
    const deadline = Date.now() + this.#pendingWaitMs;
    for (let attempt = 0; ; attempt++) {
      const existing = await this.slots.findByPlace(clientId, userUuid, 0);
      if (existing && existing.state !== 'pending') return { slot: existing, result: 'existing' };
      if (existing) {
        const recovered = await this.#takeOverPending(existing);
        if (recovered) return { slot: recovered, result: 'recovered' };
        if (Date.now() > deadline) {
          throw new AppError(
            503,
            'slot_creation_in_progress',
            'The slot is still being created; retry shortly',
          );
        }
        await sleep(Math.min(50 * 2 ** Math.min(attempt, 4), 500));
        continue;
      }
      const created = await this.#create(userUuid, clientId);
      if (created) return { slot: created, result: 'created' };
      // Lost the insert: another request is creating this user's slot (or the id collided); look again.
    }
  }

  async findSlot(id: string): Promise<Slot | undefined> {
    const slot = await this.slots.findById(id);
    return slot && slot.state !== 'pending' ? slot : undefined;
  }

  async findByContentAddress(address: string): Promise<Slot | undefined> {
    const slot = await this.slots.findByContentAddress(address);
    return slot && slot.state !== 'pending' ? slot : undefined;
  }

  /** The slot at `metaIdx` among the owner's slots of the app. */
  async slotAt(clientId: string, ownerUuid: number, metaIdx: number): Promise<Slot | undefined> {
    const slot = await this.slots.findByPlace(clientId, ownerUuid, metaIdx);
    return slot && slot.state !== 'pending' ? slot : undefined;
  }

  /** The owner's confirmed slots, of one app when given, in meta_idx order. */
  async listForOwner(ownerUuid: number, clientId?: string): Promise<Slot[]> {
    return (await this.slots.listByOwner(ownerUuid, clientId)).filter((s) => s.state !== 'pending');
  }

  async #create(userUuid: number, clientId: string): Promise<Slot | undefined> {
    const main = await this.wallets.mainWallet(userUuid);
    if (!main) throw walletRequired();
    const user = await this.users.findById(userUuid);
    if (!user) throw new AppError(401, 'invalid_token', 'The token names no user');
    const id = newSlotId();
    // C_SALT = slot id, first owner the dex: the content wallet follows the slot (docs/slots.md).
    const contentAddress = await this.ledger.contentWalletAddress(BigInt(id));
    const now = Date.now();
    const slot: Slot = {
      id,
      clientId,
      ownerUuid: userUuid,
      contentAddress,
      trCnt: 0,
      tokenNickname: user.nickname,
      metaIdx: 0,
      imported: false,
      state: 'pending',
      stateSince: now,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await this.slots.insert(slot))) return undefined;
    return this.#record(slot, main);
  }

  /** Writes the pending slot to the dex and activates it; undoes the row when the chain said no. */
  async #record(slot: Slot, main: Wallet): Promise<Slot> {
    try {
      await this.ledger.buySlot(main.address, BigInt(slot.id), slot.contentAddress);
    } catch (err) {
      if (isOutcomeUnknown(err)) {
        // Leave it pending: the next authorize asks the chain and finishes or drops it.
        this.#logger.warn({ slotId: slot.id }, 'slot creation outcome unknown; left pending for recovery');
        throw err;
      }
      await this.slots.deletePending(slot.id, slot.stateSince);
      throw err;
    }
    return this.#activate(slot, main);
  }

  async #activate(slot: Slot, main: Wallet): Promise<Slot> {
    // A row left pending by a version before dex-owned content wallets has an EOA-derived address.
    const dexOwned = sameAddress(
      slot.contentAddress,
      await this.ledger.contentWalletAddress(BigInt(slot.id)),
    );
    const firstOwner = dexOwned ? this.ledger.contentWalletOwner : main.owner;
    const activated = await this.slots.activate(slot.id, slot.stateSince, async (trx) => {
      if (await this.wallets.findByAddress(slot.contentAddress, trx)) return;
      await this.wallets.insert(
        {
          address: slot.contentAddress,
          userUuid: slot.ownerUuid,
          kind: dexOwned ? 'content' : 'slot',
          salt: BigInt(slot.id),
          initialOwner: firstOwner,
          owner: firstOwner,
          deployed: false,
          createdAt: slot.createdAt,
        },
        trx,
      );
    });
    const current = await this.slots.findById(slot.id);
    if (!activated && current?.state !== 'active') {
      throw conflict('slot_changed', 'The slot changed while it was being created; retry');
    }
    return current!;
  }

  /**
   * Finishes a pending slot whose creator stopped: once it is stale, exactly one request claims it,
   * asks the chain, and either activates it (the dex has it), writes it (the dex does not), or drops
   * it (the id belongs to someone else on chain). Undefined while it is not stale or another took it.
   */
  async #takeOverPending(slot: Slot): Promise<Slot | undefined> {
    const now = Date.now();
    if (now - slot.stateSince < this.#pendingTakeoverMs) return undefined;
    if (
      !(await this.slots.transition(
        slot.id,
        { state: 'pending', since: slot.stateSince },
        { state: 'pending', since: now },
      ))
    ) {
      return undefined;
    }
    const claimed: Slot = { ...slot, stateSince: now };
    const main = await this.wallets.mainWallet(slot.ownerUuid);
    if (!main) {
      await this.slots.deletePending(slot.id, now);
      throw walletRequired();
    }
    let owner: Address | undefined;
    try {
      owner = await this.ledger.ownerOf(BigInt(slot.id));
    } catch (err) {
      // Give the claim back so a later request retries it at once.
      await this.slots.transition(slot.id, { state: 'pending', since: now }, { state: 'pending', since: 0 });
      throw isAppErrorStatus(err, 503) ? err : chainUnavailable();
    }
    if (owner === undefined) return this.#record(claimed, main);
    if (sameAddress(owner, main.address)) return this.#activate(claimed, main);
    this.#logger.error(
      { slotId: slot.id },
      'pending slot id is owned by another wallet on chain; dropping the row',
    );
    await this.slots.deletePending(slot.id, now);
    return undefined;
  }
}

const isAppErrorStatus = (err: unknown, status: number) => err instanceof AppError && err.status === status;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
