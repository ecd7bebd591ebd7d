import {
  ApiError,
  currentSession,
  onSecondFactor,
  onStepUp,
  onStepUpWithoutPassword,
  reconfirmWithPasskey,
  redeemLoginTicket,
  signOut,
} from './api.js';
import { button, field, h } from './dom.js';
import { accountPage } from './pages/account.js';
import { passkeysPage } from './pages/passkeys.js';
import { securityPage } from './pages/security.js';
import { appPage, appsPage, newAppPage } from './pages/apps.js';
import { invitationPage, orgPage, orgsPage } from './pages/orgs.js';
import { playersPage } from './pages/players.js';
import {
  changePasswordPage,
  codeField,
  resetConfirmPage,
  resetRequestPage,
  signInPage,
  signUpPage,
} from './pages/auth.js';
import { describeError, flash, go, page } from './view.js';
import { formatError } from './federationErrors.js';
import { federationReauthentication, linkedProviders } from './pages/identities.js';
import { rememberReturnRoute, takeReturnRoute } from './returnRoute.js';
import { applyLocale, t } from './i18n/translator.js';

/** Pages anyone may open; every other route needs a signed-in session. */
const PUBLIC = new Set(['signin', 'signup', 'reset', 'reset/confirm', 'invitations']);

type Render = (params: string[], query: URLSearchParams) => HTMLElement | Promise<HTMLElement>;
const ROUTES: [RegExp, Render][] = [
  [/^signin$/, () => signInPage()],
  [/^signup$/, () => signUpPage()],
  [/^reset$/, () => resetRequestPage()],
  [/^reset\/confirm$/, (_p, query) => resetConfirmPage(query)],
  [/^password$/, () => changePasswordPage()],
  [/^apps$/, (_p, query) => appsPage(query)],
  [/^apps\/new$/, (_p, query) => newAppPage(query)],
  [/^orgs$/, () => orgsPage()],
  [/^orgs\/([^/]+)$/, ([id]) => orgPage(decodeURIComponent(id ?? ''))],
  [
    /^orgs\/([^/]+)\/apps\/([^/]+)\/players$/,
    ([id, clientId], query) =>
      playersPage(decodeURIComponent(id ?? ''), decodeURIComponent(clientId ?? ''), query),
  ],
  [/^invitations$/, (_p, query) => invitationPage(query)],
  [/^apps\/([^/]+)$/, ([id]) => appPage(decodeURIComponent(id ?? ''))],
  [/^account$/, () => accountPage()],
  [/^passkeys$/, () => passkeysPage()],
  [/^security$/, () => securityPage()],
];

const view = document.getElementById('view') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;

function renderNav(route: string): void {
  const session = currentSession();
  const link = (href: string, text: string, active: boolean) =>
    h('li', {}, h('a', { href, 'aria-current': active ? 'page' : undefined }, text));
  if (!session) {
    nav.replaceChildren(
      h(
        'ul',
        {},
        link('#/signin', t('console.nav.signin'), route === 'signin'),
        link('#/signup', t('console.nav.signup'), route === 'signup'),
      ),
    );
    return;
  }
  const out = button(t('console.nav.signout'), { id: 'sign-out', class: 'link' });
  out.addEventListener('click', () => {
    void signOut().then(() => {
      flash('ok', t('console.nav.signed_out'));
      go('#/signin');
    });
  });
  nav.replaceChildren(
    h(
      'ul',
      {},
      link('#/apps', t('console.nav.apps'), route.startsWith('apps')),
      link('#/orgs', t('console.nav.orgs'), route.startsWith('orgs')),
      link('#/account', t('console.nav.account'), route === 'account'),
      link('#/password', t('console.nav.password'), route === 'password'),
      link('#/passkeys', t('console.nav.passkeys'), route === 'passkeys'),
      link('#/security', t('console.nav.security'), route === 'security'),
      h('li', {}, out),
    ),
    h(
      'p',
      { class: 'who' },
      session.email
        ? t('console.nav.who_email', { email: session.email })
        : t('console.nav.who_account', { uuid: session.uuid }),
    ),
  );
}

/**
 * What a federated sign-in or link leaves in the URL when it comes back to /console (decisions §8):
 * `#login_ticket=…` (redeemed at once, then dropped from the address and history), `#identity_linked=…`
 * or `#federation_error=…`. Answers true when it handled the hash (and navigated).
 */
async function federationReturn(raw: string): Promise<boolean> {
  const params = new URLSearchParams(raw);
  const ticket = params.get('login_ticket');
  const linked = params.get('identity_linked');
  const failed = params.get('federation_error');
  if (ticket === null && linked === null && failed === null) return false;
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  if (ticket !== null) {
    try {
      const session = await redeemLoginTicket(ticket);
      const back = takeReturnRoute(session.uuid);
      flash('ok', back ? t('console.federation.signed_in_again') : t('console.federation.signed_in'));
      go(back ?? '#/apps');
    } catch (error) {
      flash('error', t('console.federation.failed', { reason: describeError(error) }));
      go('#/signin');
    }
  } else if (linked !== null) {
    flash('ok', t('console.federation.linked', { provider: linked }));
    go('#/account');
  } else {
    flash('error', formatError(failed ?? ''));
    go(currentSession() ? '#/account' : '#/signin');
  }
  return true;
}

let renderCount = 0;
async function render(): Promise<void> {
  if (/^#(login_ticket|identity_linked|federation_error)=/.test(location.hash)) {
    if (await federationReturn(location.hash.slice(1))) return;
  }
  const raw = location.hash.replace(/^#\/?/, '');
  const [route = '', queryString = ''] = raw.split('?');
  const signedIn = currentSession() !== null;
  if (!route) return go(signedIn ? '#/apps' : '#/signin');
  if (!signedIn && !PUBLIC.has(route)) return go('#/signin');
  const matched = ROUTES.find(([pattern]) => pattern.test(route));
  const current = ++renderCount;
  renderNav(route);
  view.setAttribute('aria-busy', 'true');
  let content: HTMLElement;
  try {
    content = matched
      ? await matched[1](matched[0].exec(route)!.slice(1), new URLSearchParams(queryString))
      : page(t('console.notfound.title'), h('p', {}, h('a', { href: '#/' }, t('console.notfound.start'))));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401 && !currentSession()) return go('#/signin');
    content = page(
      t('console.failed.title'),
      h('div', { class: 'notice error', role: 'alert' }, describeError(error)),
    );
  }
  if (current !== renderCount) return; // a later navigation won
  view.removeAttribute('aria-busy');
  view.replaceChildren(content);
  content.querySelector<HTMLElement>('h1')?.focus();
}

/** The step-up prompt: a modal dialog (focus stays inside it, Escape cancels). */
function stepUpDialog(reason: string): Promise<string | null> {
  const password = field(t('console.stepup.password'), {
    id: 'stepup-password',
    name: 'password',
    type: 'password',
    required: true,
    autocomplete: 'current-password',
  });
  const cancel = button(t('console.common.cancel'), { class: 'secondary' });
  const formEl = h(
    'form',
    { method: 'dialog' },
    h('h2', { id: 'stepup-h' }, t('console.stepup.title')),
    h('p', {}, reason),
    password.wrapper,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', id: 'stepup-submit' }, t('console.stepup.confirm')),
      cancel,
    ),
  );
  const dialog = h('dialog', { 'aria-labelledby': 'stepup-h' }, formEl) as HTMLDialogElement;
  document.body.append(dialog);
  return new Promise((resolve) => {
    let answer: string | null = null;
    formEl.addEventListener('submit', () => (answer = password.input.value));
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(answer);
    });
    dialog.showModal();
  });
}

/** The second step of a sign-in made from a prompt (step-up, federated ticket): a modal asking for the code. */
function secondFactorDialog(reason: string): Promise<string | null> {
  const code = codeField('mfa-code');
  const cancel = button(t('console.common.cancel'), { class: 'secondary' });
  const formEl = h(
    'form',
    { method: 'dialog' },
    h('h2', { id: 'mfa-h' }, t('console.mfa.title')),
    h('p', {}, reason),
    code.wrapper,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', id: 'mfa-submit' }, t('console.mfa.verify')),
      cancel,
    ),
  );
  const dialog = h('dialog', { 'aria-labelledby': 'mfa-h' }, formEl) as HTMLDialogElement;
  document.body.append(dialog);
  return new Promise((resolve) => {
    let answer: string | null = null;
    formEl.addEventListener('submit', () => (answer = code.input.value.trim()));
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(answer);
    });
    dialog.showModal();
  });
}

/**
 * The step-up prompt of a session without a password (passkey or federated sign-in): a passkey of this
 * account, or a sign-in again with one of the providers it has linked (which leaves the page and comes back
 * to it: the action is then made again).
 */
async function stepUpWithoutPasswordDialog(reason: string): Promise<boolean> {
  const providers = await linkedProviders();
  const message = h('div', { role: 'alert' });
  const usePasskey = button(t('console.stepup.passkey'), { id: 'stepup-passkey' });
  const cancel = button(t('console.common.cancel'), { class: 'secondary' });
  const dialog = h(
    'dialog',
    { 'aria-labelledby': 'stepup-h' },
    h('h2', { id: 'stepup-h' }, t('console.stepup.title')),
    h('p', {}, reason),
    message,
    h(
      'div',
      { class: 'actions' },
      usePasskey,
      ...providers.map((provider) => {
        const link = h(
          'a',
          {
            class: 'button secondary',
            href: federationReauthentication(provider),
          },
          t('console.federation.continue', { provider: provider.name }),
        );
        link.addEventListener('click', () => {
          const session = currentSession();
          if (session) rememberReturnRoute(location.hash, session.uuid);
        });
        return link;
      }),
      cancel,
    ),
  ) as HTMLDialogElement;
  document.body.append(dialog);
  return new Promise((resolve) => {
    let confirmed = false;
    usePasskey.addEventListener('click', () => {
      usePasskey.disabled = true;
      reconfirmWithPasskey()
        .then(() => {
          confirmed = true;
          dialog.close();
        })
        .catch((error: unknown) => {
          message.replaceChildren(h('div', { class: 'notice error' }, describeError(error)));
          usePasskey.disabled = false;
        });
    });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(confirmed);
    });
    dialog.showModal();
  });
}

// The shell's own words (static/index.html holds the English ones, for the moment before this runs).
applyLocale();
const brand = document.querySelector('header .brand');
if (brand) brand.textContent = t('console.frame.brand');
nav.setAttribute('aria-label', t('console.nav.label'));
onStepUp(stepUpDialog);
onSecondFactor(secondFactorDialog);
onStepUpWithoutPassword(stepUpWithoutPasswordDialog);
// The invitation mail's link, /console/invitations?token=… (docs/orgs.md): the console's own route.
const invitationLink = /\/console\/invitations\/?$/.test(location.pathname)
  ? new URLSearchParams(location.search).get('token')
  : null;
if (invitationLink !== null) {
  history.replaceState(null, '', `/console#/invitations?token=${encodeURIComponent(invitationLink)}`);
}
window.addEventListener('hashchange', () => void render());
void render();
