import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Translator } from '../../i18n/translator.js';
import { html, type SafeHtml } from './html.js';

/**
 * The ALTCHA widget (`altcha` on npm, docs/security.md "Bot challenge") on the login, sign-up and device
 * pages: its CSP-friendly "external" build (no inline styles, no blob workers), its stylesheet and its
 * SHA worker, served by this service from node_modules (`routes/assets/altcha.ts`), never from a CDN.
 */
const PACKAGE_DIR = path.resolve(path.dirname(createRequire(import.meta.url).resolve('altcha')), '../..');

const VERSION = (
  JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }
).version;

/** Where the files are served: the version is in the path, so a browser may keep them for good. */
export const ALTCHA_ASSETS_PATH = `/assets/altcha/${VERSION}`;

const FILES: Record<string, { file: string; type: string }> = {
  'altcha.js': { file: 'dist/external/altcha.js', type: 'text/javascript; charset=utf-8' },
  'altcha.css': { file: 'dist/external/altcha.css', type: 'text/css; charset=utf-8' },
  // The worker for `SHA-256` challenges (Web Crypto; the WASM workers, Argon2 and scrypt, are not used).
  'sha.js': { file: 'dist/workers/sha.js', type: 'text/javascript; charset=utf-8' },
};

export interface AltchaAsset {
  body: Buffer;
  type: string;
}

/** The three files, read once (a request can name nothing else). */
export function loadAltchaAssets(): Map<string, AltchaAsset> {
  return new Map(
    Object.entries(FILES).map(([name, { file, type }]) => [
      name,
      { body: fs.readFileSync(path.join(PACKAGE_DIR, file)), type },
    ]),
  );
}

/**
 * The widget in a form: it fetches `GET /v1/challenge` (for the form's app, whose rate sets the
 * difficulty) when the form is submitted, solves it in a worker and puts the base64 v1 solution
 * `{algorithm, challenge, number, salt, signature, took}` in the form field `altcha`, then submits. The
 * status line says what happens, and says so when the widget cannot load. Its texts and the widget's own
 * are in the page's language (`translator`, English when none is given): the status line carries them in
 * `data-messages` for the script (`ALTCHA_WIDGET`), which hands the widget its share.
 */
export function challengeField(nonce: string, clientId: string | undefined, tr: Translator): SafeHtml {
  const challenge = `/v1/challenge${clientId ? `?${new URLSearchParams({ client_id: clientId }).toString()}` : ''}`;
  const texts = {
    status: {
      unavailable: tr.t('signin.check.unavailable'),
      verifying: tr.t('signin.check.verifying'),
      verified: tr.t('signin.check.verified'),
      failed: tr.t('signin.check.failed'),
      expired: tr.t('signin.check.expired'),
    },
    // The widget's own strings (altcha's i18n keys) for the texts this configuration can show.
    widget: {
      label: tr.t('signin.check.label'),
      loading: tr.t('signin.check.loading'),
      verifying: tr.t('signin.check.verifying'),
      verified: tr.t('signin.check.done'),
      verificationRequired: tr.t('signin.check.required'),
      waitAlert: tr.t('signin.check.wait'),
      error: tr.t('signin.check.failed'),
      expired: tr.t('signin.check.expired'),
      ariaLinkLabel: tr.t('signin.check.logo'),
    },
  };
  return html`<link rel="stylesheet" nonce="${nonce}" href="${ALTCHA_ASSETS_PATH}/altcha.css" />
    <script type="module" nonce="${nonce}" id="altcha-script" src="${ALTCHA_ASSETS_PATH}/altcha.js"></script>
    <altcha-widget
      name="altcha"
      challenge="${challenge}"
      auto="onsubmit"
      display="standard"
      language="${tr.locale.toLowerCase()}"
      configuration="${JSON.stringify({ hideFooter: true })}"
    ></altcha-widget>
    <p
      class="notice"
      id="altcha-status"
      role="status"
      data-language="${tr.locale.toLowerCase()}"
      data-messages="${JSON.stringify(texts)}"
      hidden
    ></p>`;
}

/**
 * The page's own part (an arrow call, nonce-only like the page's other scripts): the SHA worker is
 * registered once the widget is defined, and the status line follows the widget's state. If the widget
 * never loads (a blocked or missing file) the status says so instead of the form failing silently.
 */
export const ALTCHA_WIDGET = `(() => {
  const status = document.getElementById('altcha-status');
  if (!status) return;
  const texts = JSON.parse(status.dataset.messages || '{}');
  const said = texts.status || {};
  const show = (text, failed) => {
    status.textContent = text;
    status.className = failed ? 'error' : 'notice';
    status.setAttribute('role', failed ? 'alert' : 'status');
    status.hidden = !text;
  };
  const unavailable = () => show(said.unavailable, true);
  const timer = setTimeout(unavailable, 15000);
  const script = document.getElementById('altcha-script');
  if (script) script.addEventListener('error', () => { clearTimeout(timer); unavailable(); });
  customElements.whenDefined('altcha-widget').then(() => {
    clearTimeout(timer);
    globalThis.$altcha.algorithms.set('SHA-256', () => new Worker(${JSON.stringify(`${ALTCHA_ASSETS_PATH}/sha.js`)}));
    // The widget's texts in the page's language, over its English ones (it shows the language it is given).
    const language = status.dataset.language;
    if (language && language !== 'en' && texts.widget) {
      globalThis.$altcha.i18n.set(language, { ...globalThis.$altcha.i18n.get('en'), ...texts.widget });
    }
    for (const widget of document.querySelectorAll('altcha-widget')) {
      widget.addEventListener('statechange', (event) => {
        const state = event.detail && event.detail.state;
        if (state === 'verifying') show(said.verifying);
        else if (state === 'verified') show(said.verified);
        else if (state === 'error') show(said.failed, true);
        else if (state === 'expired') show(said.expired, true);
        else show('');
      });
    }
  });
})()`;
