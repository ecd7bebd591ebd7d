import { ApiError } from './api.js';
import { button, type Child, h, notice } from './dom.js';
import { t } from './i18n/translator.js';

/** A message carried to the next page (e.g. "App deleted." after leaving the deleted app's page). */
let pending: { kind: 'ok' | 'error'; text: string } | null = null;
export function flash(kind: 'ok' | 'error', text: string): void {
  pending = { kind, text };
}
export function takeFlash(): HTMLElement | null {
  const message = pending;
  pending = null;
  return message ? notice(message.kind, message.text) : null;
}

export function go(hash: string): void {
  if (location.hash === hash) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = hash;
}

/** A page: its heading takes the focus after navigation so screen readers announce it. */
export function page(title: string, ...content: (Child | Child[])[]): HTMLElement {
  document.title = t('console.page.title', { title });
  return h('section', { class: 'page' }, h('h1', { tabindex: '-1' }, title), takeFlash(), ...content);
}

/** An unrouted path: this service predates the endpoint the page needs. */
export function routeMissing(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 404 &&
    (error.code === 'http_404' || error.message.startsWith('No route for'))
  );
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (routeMissing(error)) return t('console.error.route_missing');
    return t('console.error.api', { message: error.message, code: error.code });
  }
  if (error instanceof TypeError) return t('console.error.unreachable');
  return error instanceof Error ? error.message : String(error);
}

/**
 * Wires a form: the submit button is disabled while the request runs, and the outcome appears in
 * the form's message area (errors as `role=alert`, so they are read out).
 */
export function onSubmit(
  form: HTMLFormElement,
  action: () => Promise<string | void>,
  messages: HTMLElement = insertMessages(form),
): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const submit = form.querySelector<HTMLButtonElement>('button[type=submit]');
    if (submit) submit.disabled = true;
    messages.replaceChildren();
    action()
      .then((text) => {
        if (text) messages.replaceChildren(notice('ok', text));
      })
      .catch((error: unknown) => messages.replaceChildren(notice('error', describeError(error))))
      .finally(() => {
        if (submit) submit.disabled = false;
      });
  });
}

function insertMessages(form: HTMLFormElement): HTMLElement {
  const area = h('div', { class: 'messages' });
  form.prepend(area);
  return area;
}

export function form(id: string, ...content: (Child | Child[])[]): HTMLFormElement {
  return h('form', { id, novalidate: false }, ...content) as HTMLFormElement;
}

export function submit(label: string, id: string): HTMLButtonElement {
  return h('button', { type: 'submit', id }, label) as HTMLButtonElement;
}

/** A two-step confirmation in place (no `window.confirm`, which some embedders block). */
export function confirmInline(
  trigger: HTMLButtonElement,
  question: string,
  confirmLabel: string,
  onConfirm: () => Promise<void>,
  confirmId?: string,
): HTMLElement {
  const box = h('div', { class: 'confirm', hidden: true, role: 'group', 'aria-label': question });
  const yes = button(confirmLabel, { class: 'danger', 'data-confirm': 'yes', id: confirmId });
  const no = button(t('console.common.cancel'), { class: 'secondary' });
  const messages = h('div', { class: 'messages' });
  box.append(h('p', {}, question), h('div', { class: 'actions' }, yes, no), messages);
  trigger.addEventListener('click', () => {
    box.hidden = false;
    yes.focus();
  });
  const cancel = () => {
    box.hidden = true;
    trigger.focus();
  };
  no.addEventListener('click', cancel);
  box.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') cancel();
  });
  yes.addEventListener('click', () => {
    yes.disabled = true;
    onConfirm()
      .catch((error: unknown) => messages.replaceChildren(notice('error', describeError(error))))
      .finally(() => (yes.disabled = false));
  });
  return box;
}
