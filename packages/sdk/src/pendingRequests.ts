import { CallbackTimeoutError } from './errors.js';
import type { SlotInfo } from './slotInfo.js';

/**
 * The in-process registry of slot-info calls waiting for their callback, keyed by `state` (spec,
 * States › Pending backend authorization request). A request moves from `waiting` to `exchanging`
 * when its callback is claimed, which stops its timeout; it ends when its promise settles.
 */
export interface PendingRequest {
  readonly state: string;
  /** Settles with the slot, or with the reason the request failed. */
  readonly result: Promise<SlotInfo>;
  /** Aborted with the failure reason, so that the request's HTTP calls stop with it. */
  readonly signal: AbortSignal;
}

/** The handle given to whoever claimed a request's callback. */
export interface ClaimedRequest {
  readonly signal: AbortSignal;
  resolve(slot: SlotInfo): void;
  reject(error: unknown): void;
}

interface Entry extends PendingRequest, ClaimedRequest {
  phase: 'waiting' | 'exchanging';
  timer: NodeJS.Timeout;
}

export class PendingRequests {
  readonly #entries = new Map<string, Entry>();

  get size(): number {
    return this.#entries.size;
  }

  /** Registers a request; it fails with `authorize callback timeout` unless claimed within `timeoutMs`. */
  open(state: string, timeoutMs: number): PendingRequest {
    if (this.#entries.has(state)) throw new Error('duplicate pending state');
    const controller = new AbortController();
    let settle!: { resolve: (slot: SlotInfo) => void; reject: (error: unknown) => void };
    const result = new Promise<SlotInfo>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // The caller awaits `result` only after authorize; until then a timeout or shutdown must not
    // count as an unhandled rejection.
    result.catch(() => undefined);
    const entry: Entry = {
      state,
      result,
      signal: controller.signal,
      phase: 'waiting',
      timer: setTimeout(() => entry.reject(new CallbackTimeoutError()), timeoutMs),
      resolve: (slot) => {
        clearTimeout(entry.timer);
        settle.resolve(slot);
      },
      reject: (error) => {
        clearTimeout(entry.timer);
        settle.reject(error);
        if (!controller.signal.aborted) controller.abort(error);
      },
    };
    this.#entries.set(state, entry);
    return entry;
  }

  /**
   * Takes the callback for `state`: returns the request if it is still waiting, and undefined for an
   * unknown state or one whose callback already came (a duplicate delivery).
   */
  claim(state: string): ClaimedRequest | undefined {
    const entry = this.#entries.get(state);
    if (!entry || entry.phase !== 'waiting' || entry.signal.aborted) return undefined;
    entry.phase = 'exchanging';
    clearTimeout(entry.timer);
    return entry;
  }

  /** Forgets a finished request. */
  close(state: string): void {
    const entry = this.#entries.get(state);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.#entries.delete(state);
  }

  /** Fails every request, waiting or exchanging (shutdown). */
  failAll(error: unknown): void {
    for (const entry of this.#entries.values()) entry.reject(error);
  }
}
