/**
 * Group commit: the writes submitted during one turn of the event loop are committed together, in one
 * transaction (one WAL commit on SQLite; one statement and one commit on PostgreSQL), and every caller is
 * answered only after that commit returned. A crash before it loses the whole batch, none of which was
 * answered; a crash after it loses nothing that was answered — the same guarantee as one commit per write.
 *
 * Under load the token endpoint's requests arrive many to a turn (50 connections in the benchmark), and a
 * commit's fixed cost (BEGIN/COMMIT, WAL frame headers and locks, the shared B-tree pages; on PostgreSQL the
 * round trip, parse, plan and WAL flush) is paid once per batch instead of once per write
 * (docs/performance-http.md, "Round 4").
 *
 * When a batch fails as a whole (one input's constraint, a deadlock between two batches), each input is
 * retried alone so that every caller gets its own outcome and one bad input never fails the others.
 */
export interface GroupCommitSteps<I, O> {
  /** Commits every input in one transaction and returns their outputs in order; throws to roll all back. */
  all(inputs: readonly I[]): O[] | Promise<O[]>;
  /** Commits one input in its own transaction (after `all` threw). */
  one(input: I): O | Promise<O>;
  /**
   * False when the batch may not run now (SQLite: a Kysely transaction holds the one connection across
   * awaits, and a native transaction begun inside it would become its savepoint): each input then goes to
   * `one` and waits for the connection there.
   */
  ready?(): boolean;
}

interface Pending<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/** Inputs per transaction at most: bounds how long one synchronous SQLite batch holds the event loop. */
export const GROUP_COMMIT_MAX_BATCH = 64;

export class GroupCommit<I, O> {
  #pending: Pending<I, O>[] = [];
  #scheduled = false;
  /** Inputs per committed batch since the process started (metrics and the benchmark's report). */
  batches = 0;
  inputs = 0;

  constructor(
    private readonly steps: GroupCommitSteps<I, O>,
    private readonly maxBatch = GROUP_COMMIT_MAX_BATCH,
  ) {}

  /** Resolves with the input's output once the transaction that holds it has committed. */
  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#pending.push({ input, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // After the I/O phase: every request whose handler reached this point in this turn joins the batch.
        setImmediate(this.#flush);
      }
    });
  }

  #flush = (): void => {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = [];
    if (this.steps.ready && !this.steps.ready()) {
      for (const p of pending) this.#alone(p);
      return;
    }
    for (let start = 0; start < pending.length; start += this.maxBatch) {
      void this.#commit(pending.slice(start, start + this.maxBatch));
    }
  };

  async #commit(batch: Pending<I, O>[]): Promise<void> {
    let outputs: O[];
    try {
      outputs = await this.steps.all(batch.map((p) => p.input));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      for (const p of batch) await this.#alone(p);
      return;
    }
    this.batches++;
    this.inputs += batch.length;
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(outputs[i] as O);
  }

  async #alone(p: Pending<I, O>): Promise<void> {
    try {
      p.resolve(await this.steps.one(p.input));
    } catch (error) {
      p.reject(error);
    }
  }
}
