/**
 * One poll of the chain's head for every transaction the relayer follows. A submission waiting for its
 * receipt waits for the next block seen (or its own pause, whichever comes first) instead of only its pause,
 * which doubles up to seconds: a bundle mined is seen within one `intervalMs` of its block, and with several
 * bundles in flight the node gets one `eth_blockNumber` per interval rather than a receipt request per
 * bundle per pause. The poll runs only while someone waits.
 */
export class HeadWatch {
  #head: bigint | undefined;
  readonly #waiters = new Set<() => void>();
  #polling = false;

  constructor(
    private readonly readHead: () => Promise<bigint>,
    readonly intervalMs: number,
  ) {}

  /** Resolves once a block newer than the last one seen arrives, or after `maxMs`. */
  next(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.#waiters.add(done);
      if (!this.#polling) void this.#poll();
    });
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    try {
      while (this.#waiters.size > 0) {
        try {
          const head = await this.readHead();
          if (this.#head !== undefined && head !== this.#head) for (const wake of [...this.#waiters]) wake();
          this.#head = head;
        } catch {
          // The node does not answer: each waiter's own pause runs out, and its checks see the outage.
        }
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs).unref());
      }
    } finally {
      this.#polling = false;
    }
  }
}
