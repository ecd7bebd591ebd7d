import type { ContentProviderStore, ProviderRecord } from '../../stores/contentProviderStore.js';

/**
 * Registered providers by cuid, cached in memory: a registered cuid never moves to another client, so a
 * positive answer stays true (only its terms may change, which consumption does not read). Also the
 * lookup the slots domain uses to resolve a `cu_id` that names a cuid (decisions §5).
 */
export class ProviderDirectory {
  readonly #registered = new Map<string, ProviderRecord>();

  constructor(private readonly store: ContentProviderStore) {}

  /** The registration of `cuid` once it is confirmed on chain; undefined otherwise. */
  async registered(cuid: string): Promise<ProviderRecord | undefined> {
    const cached = this.#registered.get(cuid);
    if (cached) return cached;
    const found = await this.store.findProvider(cuid);
    if (found?.state !== 'registered') return undefined;
    this.#registered.set(cuid, found);
    return found;
  }

  /** The registration of `cuid` when it is cached; undefined when `registered` would have to look. */
  registeredNow(cuid: string): ProviderRecord | undefined {
    return this.#registered.get(cuid);
  }

  /** An app's cuids in every state, with their terms (read through: a pending registration may change). */
  listProvidersByClient(clientId: string): Promise<ProviderRecord[]> {
    return this.store.listProvidersByClient(clientId);
  }

  /** Forgets a cached registration after its terms changed. */
  forget(cuid: string): void {
    this.#registered.delete(cuid);
  }

  /** `cu_id` resolution for slots: the client_id a registered cuid belongs to. */
  findProviderByCuid = async (cuid: string): Promise<string | undefined> =>
    (await this.registered(cuid))?.clientId;
}
