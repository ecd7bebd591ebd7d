import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, NAMESPACES } from '../../src/i18n/catalogues/index.js';
import { SUPPORTED_LOCALES } from '../../src/i18n/locales.js';

/**
 * The check that keeps the catalogues complete (docs/i18n.md): every key in every locale and no other,
 * each message valid ICU naming the same arguments and tags as the English one, and every key used by
 * the code (a literal `'namespace.key'` in the server's or the console's sources).
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SOURCE_DIRS = [join(ROOT, 'server/src'), join(ROOT, 'console/src')];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return name === 'catalogues' || name === 'vendor' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Argument names and tag names of a message, sorted: what a translation must keep. */
function placeholders(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    into.add(element.type === TYPE.tag ? `<${element.value}>` : element.value);
    if (element.type === TYPE.tag) placeholders(element.children, into);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options)) placeholders(option.value, into);
    }
  }
  return into;
}

describe('message catalogues', () => {
  const english = CATALOGUES.en;
  const keys = Object.keys(english).sort();

  it.each(Object.entries(NAMESPACES))(
    "the %s namespace's keys start with its name, in every locale",
    (name, namespace) => {
      for (const locale of SUPPORTED_LOCALES) {
        const own = Object.keys(namespace[locale]).sort();
        expect(own, `${name} in ${locale}`).toEqual(Object.keys(namespace.en).sort());
        for (const key of own) expect(key.startsWith(`${name}.`), key).toBe(true);
      }
    },
  );

  it.each(SUPPORTED_LOCALES)(
    '%s has every key, each valid ICU with the English arguments and tags',
    (locale) => {
      const catalogue = CATALOGUES[locale];
      expect(Object.keys(catalogue).sort()).toEqual(keys);
      for (const key of keys) {
        const message = catalogue[key as keyof typeof catalogue];
        expect(message.trim(), `${locale} ${key} is empty`).not.toBe('');
        const elements = parse(message); // throws on invalid ICU syntax
        const expected = [...placeholders(parse(english[key as keyof typeof english]))].sort();
        expect([...placeholders(elements)].sort(), `${locale} ${key}`).toEqual(expected);
      }
    },
  );

  it('every key is used by the code', () => {
    const sources = SOURCE_DIRS.flatMap(sourceFiles)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const unused = keys.filter((key) => !sources.includes(`'${key}'`));
    expect(unused).toEqual([]);
  });
});
