/**
 * A tiny element builder. Every piece of text goes through `textContent` and every attribute through
 * `setAttribute`, never `innerHTML`, so an app name or an error message can never become markup.
 */
import { t } from './i18n/translator.js';

export type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | boolean | undefined>;

export function h(tag: string, attributes: Attributes = {}, ...children: (Child | Child[])[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

let fieldCounter = 0;

/** Wraps a control with its label (`for`) and an optional hint (`aria-describedby`). */
function labelled<T extends HTMLElement>(
  tag: 'input' | 'textarea',
  label: string,
  attributes: Attributes & { name: string },
  hint: string | undefined,
): { wrapper: HTMLElement; input: T } {
  const id = String(attributes.id ?? `f-${attributes.name}-${++fieldCounter}`);
  const hintId = hint ? `${id}-hint` : undefined;
  const input = h(tag, { ...attributes, id, 'aria-describedby': hintId }) as T;
  const wrapper = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
  );
  return { wrapper, input };
}

/** A labelled input. */
export function field(
  label: string,
  attributes: Attributes & { name: string },
  hint?: string,
): { wrapper: HTMLElement; input: HTMLInputElement } {
  return labelled<HTMLInputElement>('input', label, { type: 'text', ...attributes }, hint);
}

/** A labelled multi-line input holding `value`. */
export function textarea(
  label: string,
  attributes: Attributes & { name: string },
  value: string,
  hint?: string,
): { wrapper: HTMLElement; input: HTMLTextAreaElement } {
  const control = labelled<HTMLTextAreaElement>('textarea', label, { rows: '3', ...attributes }, hint);
  control.input.value = value;
  return control;
}

export function button(label: string, attributes: Attributes = {}): HTMLButtonElement {
  return h('button', { type: 'button', ...attributes }, label) as HTMLButtonElement;
}

/** A message box: errors interrupt screen readers (`alert`), confirmations do not (`status`). */
export function notice(kind: 'error' | 'ok' | 'warning', text: string): HTMLElement {
  return h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}

/** A value shown once (a secret, a key) with a copy button: `copyLabel` names what it copies ("Copy client secret"). */
export function secretBox(label: string, copyLabel: string, value: string, id: string): HTMLElement {
  const code = h('code', { id, class: 'secret' }, value);
  const copy = button(copyLabel, { class: 'secondary', 'data-copy': id });
  const status = h('span', { class: 'hint', role: 'status' });
  copy.addEventListener('click', () => {
    void navigator.clipboard.writeText(value).then(
      () => (status.textContent = t('console.common.copied')),
      () => (status.textContent = t('console.common.copy_failed')),
    );
  });
  return h(
    'div',
    { class: 'secret-box' },
    h('p', { class: 'label' }, label),
    code,
    h('div', {}, copy, ' ', status),
  );
}

/** A definition list of label → value rows. */
export function facts(rows: [string, string | Node][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
  );
}
