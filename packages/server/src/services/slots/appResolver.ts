/**
 * Resolves a `cu_id` to the client_id of the app it names (decisions §5: a client_id, or a cuid
 * registered to the app). Lookups are tried in order; the content-token domain adds its cuid
 * lookup with `add` when it is wired, without this module knowing about it.
 */
export type AppLookup = (cuId: string) => Promise<string | undefined>;

export class AppResolver {
  readonly #lookups: AppLookup[] = [];

  constructor(...lookups: AppLookup[]) {
    this.#lookups.push(...lookups);
  }

  /** Adds a lookup (e.g. cuid → client_id); earlier lookups win. */
  add(lookup: AppLookup): void {
    this.#lookups.push(lookup);
  }

  async resolve(cuId: string): Promise<string | undefined> {
    for (const lookup of this.#lookups) {
      const clientId = await lookup(cuId);
      if (clientId !== undefined) return clientId;
    }
    return undefined;
  }
}
