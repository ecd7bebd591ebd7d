import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core in a real page, and what a keyboard user meets: the focus order and its indicator. The pages
 * have a strict nonce CSP (`script-src 'nonce-…'`), so a `<script>` tag with axe's source would be
 * refused; Playwright's `page.evaluate` runs through the DevTools protocol, outside the page's CSP.
 */
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2.0 A and AA and WCAG 2.1 AA (decisions §9: "passes axe-core"). */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa'] as const;

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  /** One CSS selector path per element that fails (inside shadow roots: the host's, then the element's). */
  targets: string[];
}

/** axe's violations of `WCAG_AA_TAGS` on the page as it is now (axe is injected once per document). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Browser-side code as strings, like the other browser suites: the tests' TypeScript has no DOM types.
  if (!(await page.evaluate("typeof axe !== 'undefined'"))) await page.evaluate(AXE_SOURCE);
  const options = { runOnly: { type: 'tag', values: WCAG_AA_TAGS }, resultTypes: ['violations'] };
  return page.evaluate<AxeViolation[]>(`axe.run(document, ${JSON.stringify(options)}).then((results) =>
    results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      targets: v.nodes.map((n) => n.target.map((t) => (Array.isArray(t) ? t.join(' >>> ') : t)).join(' >>> ')),
    })))`);
}

/** The violations that fail a page (decisions §9: no serious or critical one). */
export const blocking = (violations: AxeViolation[]) =>
  violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');

/** One line per violation: id, impact, the elements, what to do. */
export const describeViolations = (violations: AxeViolation[]) =>
  violations
    .map((v) => `${v.id} (${v.impact}) at ${v.targets.join(', ')}: ${v.help} <${v.helpUrl}>`)
    .join('\n');

/** The focused element as a keyboard user sees it: where it is and whether its focus shows. */
export interface FocusedElement {
  /** `tag#id` (or `tag.class`, `tag[name]`), enough to tell the page's controls apart. */
  name: string;
  rect: { top: number; bottom: number; left: number; right: number };
  outline: string;
  boxShadow: string;
}

/** The element with the focus (inside a shadow root, its innermost one); undefined for the document body. */
export async function focusedElement(page: Page): Promise<FocusedElement | undefined> {
  const el = await page.evaluate<FocusedElement | null>(`(() => {
    let el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (!el || el === document.body || el === document.documentElement) return null;
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const name = el.getAttribute('name');
    return {
      name: el.tagName.toLowerCase() +
        (el.id ? '#' + el.id : name ? '[name=' + name + ']' : el.classList.length ? '.' + [...el.classList].join('.') : ''),
      rect: { top: box.top + scrollY, bottom: box.bottom + scrollY, left: box.left, right: box.right },
      outline: style.outlineStyle + ' ' + style.outlineWidth + ' ' + style.outlineColor,
      boxShadow: style.boxShadow,
    };
  })()`);
  return el ?? undefined;
}

/** The root element's `lang`, `dir` attribute and computed direction. */
export function pageLanguage(
  page: Page,
): Promise<{ lang: string; dir: string | null; direction: 'ltr' | 'rtl' }> {
  return page.evaluate(`({
    lang: document.documentElement.lang,
    dir: document.documentElement.getAttribute('dir'),
    direction: getComputedStyle(document.documentElement).direction,
  })`);
}

/** A focus indicator a sighted keyboard user can see: an outline of some width, or a box shadow. */
export const focusVisible = (el: FocusedElement) =>
  (!el.outline.startsWith('none') && !/^\S+ 0px/.test(el.outline)) || el.boxShadow !== 'none';

/**
 * Tab from the current focus until it leaves the page or comes back to an element already met: the page's
 * tab sequence, in order. Call it on a freshly loaded page (focus at the top, or on an `autofocus` field).
 */
export async function tabSequence(page: Page, max = 40): Promise<FocusedElement[]> {
  const sequence: FocusedElement[] = [];
  const start = await focusedElement(page);
  if (start) sequence.push(start);
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const el = await focusedElement(page);
    if (!el || sequence.some((s) => s.name === el.name)) return sequence;
    sequence.push(el);
  }
  throw new Error(`more than ${max} Tab stops: ${sequence.map((s) => s.name).join(' ')}`);
}

/**
 * Where the tab sequence goes against the reading order: a next element above the previous one's line,
 * or on the same line but back against the writing direction (left in `ltr`, right in `rtl`). Empty
 * when the keyboard follows the page as it is read.
 */
export function outOfVisualOrder(sequence: FocusedElement[], dir: 'ltr' | 'rtl'): string[] {
  const problems: string[] = [];
  for (let i = 1; i < sequence.length; i++) {
    const a = sequence[i - 1]!;
    const b = sequence[i]!;
    const sameLine = b.rect.top < a.rect.bottom - 1 && a.rect.top < b.rect.bottom - 1;
    const nextLine = b.rect.top >= a.rect.bottom - 1;
    const forward = dir === 'ltr' ? b.rect.left >= a.rect.right - 1 : b.rect.right <= a.rect.left + 1;
    if (!(nextLine || (sameLine && forward))) problems.push(`${a.name} → ${b.name}`);
  }
  return problems;
}
