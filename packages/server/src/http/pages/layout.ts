import { LOCALE_NAMES, SUPPORTED_LOCALES } from '../../i18n/locales.js';
import type { Translator } from '../../i18n/translator.js';
import { html, SafeHtml } from './html.js';

/** Where the language switcher's form goes (http/routes/locale.ts). */
export const LOCALE_SWITCH_PATH = '/locale';

/**
 * The pages' one stylesheet. Logical properties (`inline`, `start`) so right-to-left locales mirror
 * without a second sheet; a visible focus ring for keyboard users; colours at WCAG AA contrast.
 */
const STYLE = `
  *{box-sizing:border-box}
  body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#1d2330;margin:0;
    display:flex;flex-direction:column;min-height:100vh;align-items:center;justify-content:center;padding:16px 8px}
  main{background:#fff;border-radius:12px;box-shadow:0 2px 16px rgba(0,0,0,.08);padding:32px;width:100%;max-width:400px}
  h1{font-size:1.25rem;margin:0 0 8px}
  p{margin:0 0 16px;color:#4a5263}
  label{display:block;font-weight:600;margin:12px 0 4px}
  input[type=email],input[type=password],input[type=text]{width:100%;padding:10px;border:1px solid #6b7385;border-radius:8px;font:inherit}
  .actions{display:flex;gap:12px;margin-top:20px}
  button{flex:1;padding:10px;border-radius:8px;border:1px solid #2d5bd3;background:#2d5bd3;color:#fff;font:inherit;cursor:pointer}
  button.secondary{background:#fff;color:#2347a8}
  .account{margin-top:20px;font-size:.9em}
  .account p{margin:0}
  button.link{flex:none;padding:0;border:0;background:none;color:#2347a8;text-decoration:underline}
  .error{background:#fdecec;color:#8a1c1c;border-radius:8px;padding:8px 12px;margin-bottom:12px}
  .app{font-weight:700}
  .origin{font-family:ui-monospace,monospace;font-size:.9em;direction:ltr;unicode-bidi:isolate}
  .email,#shown-code{direction:ltr;unicode-bidi:isolate}
  input[type=email]{direction:ltr}
  [dir=rtl] input[type=email]{text-align:right}
  .qr svg{display:block;width:200px;height:200px;margin:0 auto 12px}
  .uri,.codes{font-family:ui-monospace,monospace;font-size:.85em;word-break:break-all;direction:ltr;unicode-bidi:isolate}
  .links{margin-top:16px;font-size:.9em;display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap}
  a{color:#2347a8}
  .notice{background:#eaf6ee;color:#1c5a2e;border-radius:8px;padding:8px 12px;margin-bottom:12px}
  .federation{display:flex;flex-direction:column;gap:8px;margin-top:16px}
  a.provider{display:block;text-align:center;padding:10px;border-radius:8px;border:1px solid #6b7385;color:#1d2330;text-decoration:none}
  :focus-visible{outline:3px solid #1a3d99;outline-offset:2px}
  .language{margin-top:16px;display:flex;gap:8px;align-items:center;font-size:.9em;color:#4a5263}
  .language label{display:inline;font-weight:400;margin:0}
  .language select{font:inherit;padding:4px 8px;border:1px solid #6b7385;border-radius:6px;background:#fff}
  .language button{flex:none;padding:4px 12px;background:#fff;color:#2347a8}
`;

export interface PageFrame {
  translator: Translator;
  nonce: string;
  /** The page's own title; " · dauth" follows it. */
  title: string;
  /**
   * This page's GET address (path and query, the flow's `ui_locales` left out or kept, the switch replaces
   * it): the language switcher returns there. No switcher without it (a page a POST answered, say).
   */
  returnTo?: string | undefined;
  /** An inline script; it carries the page's CSP nonce. */
  script?: string | undefined;
}

/**
 * Every player-facing page's frame: the language and direction of its locale on `<html>`, one `<main>`
 * landmark, and the language switcher (a plain GET form: works without script and from the keyboard).
 */
export function renderPage(frame: PageFrame, body: SafeHtml): string {
  const { translator: tr, nonce } = frame;
  return html`<!doctype html>
    <html lang="${tr.locale}" dir="${tr.dir}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>${frame.title} · dauth</title>
        <style nonce="${nonce}">
          ${new SafeHtml(STYLE)}
        </style>
      </head>
      <body>
        <main>${body}</main>
        ${frame.returnTo ? html`<footer>${languageSwitcher(tr, frame.returnTo)}</footer>` : ''}
        ${
          frame.script
            ? html`<script nonce="${nonce}">
                ${new SafeHtml(frame.script)};
              </script>`
            : ''
        }
      </body>
    </html> `.html;
}

function languageSwitcher(tr: Translator, returnTo: string): SafeHtml {
  return html`<form class="language" method="get" action="${LOCALE_SWITCH_PATH}" id="language-switcher">
    <input type="hidden" name="return_to" value="${returnTo}" />
    <label for="language-select">${tr.t('common.language')}</label>
    <select id="language-select" name="locale">
      ${SUPPORTED_LOCALES.map(
        (locale) =>
          html`<option
            value="${locale}"
            lang="${locale}"
            ${locale === tr.locale ? new SafeHtml('selected') : ''}
          >
            ${LOCALE_NAMES[locale]}
          </option>`,
      )}
    </select>
    <button type="submit" id="language-submit">${tr.t('common.changeLanguage')}</button>
  </form>`;
}
