import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { CATALOGUES, LOCALES } from '../src/i18n/catalogues/index.js';
import { pickLocale, textDirection } from '../src/i18n/locale.js';

/**
 * The console's message catalogue (docs/console.md, "Language") against the console's sources: every key
 * is used as a literal `'console.…'` and every such literal is a key; each message is valid ICU and
 * formats; a message with tags is only ever rendered by `rich()`; no area file redefines another's key.
 */
const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const CATALOGUE_DIR = join(SRC, 'i18n/catalogues');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory())
      return path === CATALOGUE_DIR || name === 'vendor' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const sources = sourceFiles(SRC)
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');
const english: Record<string, string> = CATALOGUES.en;
const keys = Object.keys(english).sort();

/** The arguments and tags of a message, each with what it needs to be formatted. */
function placeholders(
  elements: MessageFormatElement[],
  into = new Map<string, 'text' | 'number' | 'select' | 'tag'>(),
) {
  for (const element of elements) {
    switch (element.type) {
      case TYPE.literal:
      case TYPE.pound:
        break;
      case TYPE.tag:
        into.set(element.value, 'tag');
        placeholders(element.children, into);
        break;
      case TYPE.plural:
      case TYPE.number:
        into.set(element.value, 'number');
        if (element.type === TYPE.plural) {
          for (const option of Object.values(element.options)) placeholders(option.value, into);
        }
        break;
      case TYPE.select:
        into.set(element.value, 'select');
        for (const option of Object.values(element.options)) placeholders(option.value, into);
        break;
      default:
        if (!into.has(element.value)) into.set(element.value, 'text');
    }
  }
  return into;
}

describe('console message catalogue', () => {
  it('uses every key as a literal in the sources, and every literal is a key', () => {
    expect(keys.length).toBeGreaterThan(300);
    expect(keys.filter((key) => !sources.includes(`'${key}'`))).toEqual([]);
    const literals = new Set([...sources.matchAll(/'(console\.[A-Za-z0-9_.]+)'/g)].map((m) => m[1]!));
    expect([...literals].filter((literal) => !(literal in english)).sort()).toEqual([]);
  });

  it('has each key once across the area files, every key named console.<area>.<purpose>', () => {
    const seen = new Map<string, string>();
    const doubled: string[] = [];
    for (const area of readdirSync(CATALOGUE_DIR).filter((name) => !name.endsWith('.ts'))) {
      const text = readFileSync(join(CATALOGUE_DIR, area, 'en.ts'), 'utf8');
      for (const [, key] of text.matchAll(/^ {2}'(console\.[^']+)':/gm)) {
        if (seen.has(key!)) doubled.push(`${key} in ${area} and ${seen.get(key!)}`);
        seen.set(key!, area);
      }
    }
    expect(doubled).toEqual([]);
    expect([...seen.keys()].sort()).toEqual(keys);
    for (const key of keys) expect(key).toMatch(/^console\.[a-z]+\.[a-z0-9_.]+$/);
  });

  it('holds valid ICU that formats, with tags only in messages rendered by rich()', () => {
    const tagged = new Set<string>();
    for (const key of keys) {
      const message = english[key]!;
      expect(message.trim(), key).not.toBe('');
      const needs = placeholders(parse(message)); // throws on invalid ICU syntax
      const values: Record<string, unknown> = {};
      for (const [name, kind] of needs) {
        values[name] =
          kind === 'number'
            ? 2
            : kind === 'select'
              ? 'other'
              : kind === 'tag'
                ? (c: unknown[]) => c
                : `[${name}]`;
        if (kind === 'tag') tagged.add(key);
      }
      // Formats in the console's way (tags parsed), without a missing value or a bad number skeleton.
      const formatted = new IntlMessageFormat(message, 'en', undefined, { ignoreTag: false }).format(
        values as never,
      );
      const text = Array.isArray(formatted) ? formatted.flat(3).join('') : String(formatted);
      for (const [name, kind] of needs) if (kind === 'text') expect(text, key).toContain(`[${name}]`);
    }
    expect(tagged.size).toBeGreaterThan(0);
    for (const key of tagged)
      expect(sources, key).toMatch(new RegExp(`rich\\(\\s*'${key.replace(/\./g, '\\.')}'`));
    // And a tagged message is never given to t(), which would not render its tags.
    for (const key of tagged)
      expect(sources, key).not.toMatch(new RegExp(`\\bt\\(\\s*'${key.replace(/\./g, '\\.')}'`));
  });

  it('picks the locale from the browser’s languages among the catalogues present', () => {
    expect(LOCALES).toEqual(['en']);
    const offered = ['en', 'pt-BR', 'zh-Hans', 'ar'] as const;
    expect(pickLocale(['en-GB', 'fr'], offered, 'en')).toBe('en');
    expect(pickLocale(['fr-FR', 'pt-PT'], offered, 'en')).toBe('pt-BR');
    expect(pickLocale(['zh-CN'], offered, 'en')).toBe('zh-Hans');
    // Traditional Chinese is not Simplified, and nothing close falls back to English.
    expect(pickLocale(['zh-TW', 'de'], offered, 'en')).toBe('en');
    expect(pickLocale(['PT-br'], offered, 'en')).toBe('pt-BR');
    expect(pickLocale(['not a tag', 'ar-EG'], offered, 'en')).toBe('ar');
    expect(pickLocale([], offered, 'en')).toBe('en');
    // The console ships English only for now: every browser gets it.
    expect(pickLocale(['ja-JP', 'de-DE'], LOCALES, 'en')).toBe('en');
    expect(textDirection('ar')).toBe('rtl');
    expect(textDirection('en')).toBe('ltr');
  });
});
