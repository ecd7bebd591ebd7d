/**
 * The nonces of one relayer key while several of its transactions are in flight (BUNDLES_IN_FLIGHT): each
 * submission takes the next one, so consecutive bundles go out with consecutive nonces and can share a block.
 *
 * A nonce is taken before anything is signed. If its submission then ends without having sent anything (the
 * node refused the connection, the journal could not be written), the nonce is unused:
 * - when it is the newest one handed out, it is simply handed out again;
 * - when a later nonce was handed out meanwhile, it is a hole: the later transactions cannot be mined until
 *   something takes it. The submitter fills it with a no-op transfer to itself (`holesIn`, `filled`), rather
 *   than re-signing the later bundles down a nonce (their signed bytes are journaled and may be on the node).
 *
 * When the chain's nonce may differ from ours (another transaction took one of our nonces, the node stopped
 * answering, the chain restarted), the next nonce is read from the chain again, but only once nothing is in
 * flight: a read while bundles are in flight could hand out a nonce one of them holds.
 */
export class RelayerNonces {
  /** The next nonce to hand out; undefined: read the chain's pending nonce first. */
  #next: number | undefined;
  /** The chain read in progress, shared by submissions that start together. */
  #reading: Promise<number> | undefined;
  /** Nonces whose submission is still running. */
  readonly #flying = new Set<number>();
  /** Nonces handed out and never sent, below one handed out later. */
  readonly #holes = new Set<number>();
  /** Read the chain's nonce again once nothing is in flight. */
  #stale = false;

  constructor(private readonly readPending: () => Promise<number>) {}

  /** Submissions running now. */
  get inFlight(): number {
    return this.#flying.size;
  }

  /** The next nonce, for a submission that starts now. Throws (nothing taken) when the chain cannot be read. */
  async take(): Promise<number> {
    if (this.#stale && this.#flying.size === 0) this.#forget();
    while (this.#next === undefined) {
      this.#reading ??= this.readPending().finally(() => (this.#reading = undefined));
      const pending = await this.#reading;
      this.#next ??= pending;
    }
    const nonce = this.#next;
    this.#next += 1;
    this.#flying.add(nonce);
    return nonce;
  }

  /**
   * The submission of `nonce` ended. `sent`: its transaction may have reached the node, so the nonce is used
   * (or will be, or the chain's reading says otherwise later). Not sent: the nonce is free again.
   */
  release(nonce: number, sent: boolean): void {
    this.#flying.delete(nonce);
    if (sent || this.#next === undefined || nonce >= this.#next) return;
    if (this.#next === nonce + 1) {
      // The newest: hand it out again, and any holes right below it with it.
      this.#next = nonce;
      while (this.#holes.delete(this.#next - 1)) this.#next -= 1;
    } else {
      this.#holes.add(nonce);
    }
  }

  /** The chain's nonce may not be ours any more: read it again before handing out the next one. */
  invalidate(): void {
    if (this.#flying.size === 0) this.#forget();
    else this.#stale = true;
  }

  /** Whether a submission of this process is sending `nonce` right now (its own loop takes care of it). */
  isFlying(nonce: number): boolean {
    return this.#flying.has(nonce);
  }

  /** Whether `nonce` was handed out, abandoned unsent, and not filled since. */
  isHole(nonce: number): boolean {
    return this.#holes.has(nonce);
  }

  /** A transaction of ours (a filler) now holds `nonce`. */
  filled(nonce: number): void {
    this.#holes.delete(nonce);
  }

  #forget(): void {
    this.#next = undefined;
    this.#holes.clear();
    this.#stale = false;
  }
}
