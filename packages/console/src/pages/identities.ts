import { ApiError, call, encode } from '../api.js';
import { button, facts, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { confirmInline, describeError, flash, go, routeMissing } from '../view.js';
import { t } from '../i18n/translator.js';

/** An upstream sign-in provider (decisions §8, "Sign in with Google, Apple, Discord, Steam"). */
export interface FederationProvider {
  id: string;
  kind: string;
  name: string;
}

interface Identity {
  id: string;
  provider: string;
  provider_name: string;
  subject: string;
  email: string | null;
  created_at: string;
}

/** The providers the sign-in page offers; none from a service without federation (or when it fails). */
export async function federationProviders(): Promise<FederationProvider[]> {
  try {
    return (await call<{ providers: FederationProvider[] }>('GET', '/v1/federation/providers')).providers;
  } catch {
    return [];
  }
}

/** Where "Continue with …" starts: the service's redirect to the provider, back to the console after. */
export const federationStart = (provider: FederationProvider): string =>
  `/v1/federation/${encode(provider.id)}/start?return_to=${encode('/console')}`;

/** The step-up's start: the provider must sign the user in again, not answer from its own session. */
export const federationReauthentication = (provider: { id: string }): string =>
  `${federationStart({ id: provider.id, kind: '', name: '' })}&reauthenticate=true`;

/**
 * The providers this account has linked that sign in through the browser (a step-up can only go through
 * one of them; a platform identity of the game, Epic or Game Center, has no browser sign-in).
 */
export async function linkedProviders(): Promise<{ id: string; name: string }[]> {
  try {
    const [{ identities }, browser] = await Promise.all([
      call<{ identities: Identity[] }>('GET', '/v1/dev-user/identities'),
      federationProviders(),
    ]);
    const signsIn = new Set(browser.map((p) => p.id));
    const byId = new Map(
      identities
        .filter((i) => signsIn.has(i.provider))
        .map((i) => [i.provider, { id: i.provider, name: i.provider_name }]),
    );
    return [...byId.values()];
  } catch {
    return [];
  }
}

/**
 * The account's linked sign-in identities with an unlink button each, and a "Link" button per provider;
 * null (no section) when the service has no federation endpoints.
 */
export async function identitiesSection(): Promise<HTMLElement | null> {
  let identities: Identity[];
  let providers: FederationProvider[];
  try {
    [{ identities }, { providers }] = await Promise.all([
      call<{ identities: Identity[] }>('GET', '/v1/dev-user/identities'),
      call<{ providers: FederationProvider[] }>('GET', '/v1/federation/providers'),
    ]);
  } catch (error) {
    if (routeMissing(error)) return null;
    return wrap(notice('error', describeError(error)));
  }
  const messages = h('div', { class: 'messages' });
  const list = identities.length
    ? h(
        'ul',
        { class: 'cards', id: 'identity-list' },
        identities.map((i) => identityCard(i, messages)),
      )
    : h('p', { id: 'identity-list' }, t('console.identities.none'));
  const links = providers.map((provider) => {
    const link = button(t('console.identities.link', { provider: provider.name }), {
      class: 'secondary',
      'data-link-provider': provider.id,
    });
    link.addEventListener('click', () => {
      link.disabled = true;
      messages.replaceChildren();
      // The answer's link cookie must land in this browser: the URL works only where it is.
      call<{ url: string }>(
        'POST',
        '/v1/dev-user/identities/link',
        { provider: provider.id },
        { keepCookies: true },
      )
        .then(({ url }) => location.assign(url))
        .catch((error: unknown) => {
          link.disabled = false;
          messages.replaceChildren(notice('error', describeError(error)));
        });
    });
    return link;
  });
  return wrap(
    h('p', {}, t('console.identities.intro')),
    messages,
    list,
    links.length ? h('div', { class: 'actions' }, links) : null,
  );
}

function wrap(...content: (Node | null)[]): HTMLElement {
  return h(
    'section',
    { id: 'identities', 'aria-labelledby': 'identities-h' },
    h('h2', { id: 'identities-h' }, t('console.identities.title')),
    ...content,
  );
}

function identityCard(identity: Identity, messages: HTMLElement): HTMLElement {
  const trigger = button(t('console.identities.unlink', { provider: identity.provider_name }), {
    class: 'danger',
    'data-unlink': identity.id,
  });
  const card = h('li', { class: 'card identity', 'data-identity': identity.id });
  const confirm = confirmInline(
    trigger,
    t('console.identities.unlink_question', { provider: identity.provider_name }),
    t('console.identities.unlink_confirm'),
    async () => {
      try {
        await call('DELETE', `/v1/dev-user/identities/${encode(identity.id)}`);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'last_sign_in_method') {
          confirm.hidden = true;
          messages.replaceChildren(
            notice('warning', t('console.identities.last', { provider: identity.provider_name })),
          );
          return;
        }
        throw error;
      }
      flash('ok', t('console.identities.unlinked', { provider: identity.provider_name }));
      go('#/account');
    },
  );
  card.append(
    h('h3', {}, identity.provider_name),
    facts([
      [t('console.identities.subject'), h('code', {}, identity.subject)],
      [t('console.identities.email'), identity.email ?? t('console.identities.email_none')],
      [t('console.identities.linked'), formatTime(identity.created_at)],
    ]),
    trigger,
    confirm,
  );
  return card;
}
