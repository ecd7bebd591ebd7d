import { randomBytes } from 'node:crypto';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON that is safe inside `<script type="application/json">` (no `</script>`, no line separators). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Text that has already been escaped (or is a trusted template fragment). */
export class SafeHtml {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

/** Tagged template: interpolations are escaped unless they are `SafeHtml` (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.html;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Security headers of every page: a strict CSP (nonce-only script and style, no external
 * assets, forms may only go to the service and, after the consent redirect, to the app's
 * origin), no framing, no referrer (codes and state must not leak), no caching.
 */
export function pageHeaders(
  nonce: string,
  formTargets: string[] = [],
  options: {
    connectSelf?: boolean;
    altcha?: boolean;
    /**
     * `same-origin` for a page whose form posts to a route that checks `Origin` (the mailed links' confirm
     * pages): under `no-referrer` a browser sends `Origin: null` with the form, even to its own origin.
     * Other origins still get no referrer, so the link's token never leaves the service.
     */
    referrerPolicy?: 'no-referrer' | 'same-origin';
  } = {},
): Record<string, string> {
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      "img-src 'self' data:",
      // The sign-in page asks the service's own API for a passkey challenge.
      ...(options.connectSelf || options.altcha ? ["connect-src 'self'"] : []),
      // The ALTCHA widget (docs/security.md "Bot challenge") solves in a worker, a file of this service;
      // its module and stylesheet carry the page's nonce.
      ...(options.altcha ? ["worker-src 'self'"] : []),
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': options.referrerPolicy ?? 'no-referrer',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
}

/**
 * Whether the client prefers an HTML page to JSON: `text/html` is named and ranks at least as high as
 * `application/json`. A bare `*` / `*` (curl, fetch's default) keeps the JSON shape API clients expect.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = qualityOf(params);
    if (type.trim() === 'text/html') html = Math.max(html, q);
    if (type.trim() === 'application/json') json = Math.max(json, q);
  }
  return html > 0 && html >= json;
}

function qualityOf(params: string[]): number {
  for (const param of params) {
    const [name, value] = param.split('=').map((s) => s.trim());
    if (name === 'q') {
      const q = Number(value);
      return Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0;
    }
  }
  return 1;
}
