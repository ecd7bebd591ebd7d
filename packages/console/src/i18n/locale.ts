/**
 * The console's language: the first of the browser's preferred languages (`navigator.languages`) that one
 * of its catalogues serves, else `fallback`. A tag matches a catalogue exactly (`pt-BR`), or by language
 * and script once both are expanded (CLDR's likely subtags: `en-GB` → `en`, `zh-CN` → `zh-Hans`, `pt-PT`
 * → `pt-BR`; `zh-TW` is Traditional Chinese and does not match `zh-Hans`).
 */
export function pickLocale<L extends string>(
  requested: readonly string[],
  available: readonly L[],
  fallback: L,
): L {
  const expand = (tag: string): Intl.Locale | undefined => {
    try {
      return new Intl.Locale(tag).maximize();
    } catch {
      return undefined; // not a well-formed BCP 47 tag: skipped
    }
  };
  for (const tag of requested) {
    const wanted = expand(tag);
    if (!wanted) continue;
    const exact = available.find((a) => a.toLowerCase() === tag.toLowerCase());
    if (exact) return exact;
    const near = available.filter((a) => {
      const offered = expand(a);
      return offered?.language === wanted.language && offered.script === wanted.script;
    });
    const best = near.find((a) => expand(a)?.region === wanted.region) ?? near[0];
    if (best) return best;
  }
  return fallback;
}

/** Languages written right to left, for `<html dir>`. */
const RIGHT_TO_LEFT = new Set(['ar', 'fa', 'he', 'ur']);
export const textDirection = (locale: string): 'ltr' | 'rtl' =>
  RIGHT_TO_LEFT.has(locale.split('-')[0] ?? '') ? 'rtl' : 'ltr';
