import type { Locale } from '../locales.js';

/**
 * A translation of a namespace's English messages: exactly its keys, each an ICU message. Written as
 * `export default { … } satisfies Translation<typeof en>`, so a missing or an extra key fails typecheck.
 */
export type Translation<English> = { readonly [Key in keyof English]: string };

/** A namespace in every supported locale. */
export type NamespaceCatalogue<English> = Readonly<Record<Locale, Translation<English>>>;
