/**
 * What the start is doing while the port already answers (server.ts): each step of `createServices` is
 * `starting` until it is done, and a step may name its own progress (the chain's journal recovery:
 * `recovering: 120/400 lost transactions replayed`). The startup handler shows it in `/readyz`.
 */
export class StartupProgress {
  readonly #steps = new Map<string, () => string>();
  #current: string | undefined;
  #adminApiKey: string | undefined;

  /** The admin key, once the secrets are loaded: only a caller with it sees each step's detail. */
  get adminApiKey(): string | undefined {
    return this.#adminApiKey;
  }

  useAdminKey(adminApiKey: string): void {
    this.#adminApiKey = adminApiKey;
  }

  /** `step` starts now; `detail` (read at each `/readyz`) says how far it got. */
  begin(step: string, detail: () => string = () => 'starting'): void {
    this.#steps.set(step, detail);
    this.#current = step;
  }

  /** A later, finer detail for the step already begun (the chain's recovery once it exists). */
  watch(step: string, detail: () => string): void {
    this.#steps.set(step, detail);
  }

  done(step: string): void {
    this.#steps.set(step, () => 'ok');
    if (this.#current === step) this.#current = undefined;
  }

  /** The step running now (undefined between two steps). */
  get current(): string | undefined {
    return this.#current;
  }

  /** Each step begun so far with its detail (`ok` when done), in the order they began. */
  checks(): Record<string, string> {
    const checks: Record<string, string> = {};
    for (const [step, detail] of this.#steps) checks[step] = detail();
    return checks;
  }
}
