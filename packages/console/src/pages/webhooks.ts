import { call, encode } from '../api.js';
import { button, facts, field, h, notice, secretBox } from '../dom.js';
import { formatTime } from '../format.js';
import type { MessageKey } from '../i18n/catalogues/index.js';
import { formatInteger, t } from '../i18n/translator.js';
import { confirmInline, form, onSubmit, submit } from '../view.js';

/** The event types an endpoint can subscribe to (docs/webhooks.md), the server's list (checked by a test). */
const EVENT_TYPES = [
  'grant.created',
  'grant.revoked',
  'status.changed',
  'slot.created',
  'slot.transferred',
  'market.listing.sold',
  'content.purchased',
  'content.consumed',
  'content.released',
  'session_key.granted',
  'session_key.revoked',
  'user.deleted',
  'sponsorship.exhausted',
];

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  failing: boolean;
  failing_since: string | null;
}

/** A delivery's state in words; `data-state` keeps the API's code. */
const STATES: Record<string, MessageKey> = {
  pending: 'console.webhooks.state.pending',
  delivered: 'console.webhooks.state.delivered',
  failed: 'console.webhooks.state.failed',
};
const stateText = (state: string) => (Object.hasOwn(STATES, state) ? t(STATES[state]!) : state);

interface Delivery {
  id: string;
  type: string;
  state: string;
  attempts: number;
  created_at: string;
  last_status: number | null;
  last_error: string | null;
}

/**
 * An app's webhook endpoints: each with its failing state and latest deliveries, a form to add one
 * (its signing secret shown once) and a delete per endpoint.
 */
export async function webhooksSection(path: string): Promise<HTMLElement> {
  const { webhooks } = await call<{ webhooks: Endpoint[] }>('GET', `${path}/webhooks`);
  const items = await Promise.all(webhooks.map((endpoint) => endpointCard(path, endpoint)));
  const list = items.length
    ? h('ul', { class: 'cards', id: 'webhook-list' }, items)
    : h('p', { id: 'webhook-list' }, t('console.webhooks.none'));
  return h(
    'section',
    { 'aria-labelledby': 'webhooks-h' },
    h('h2', { id: 'webhooks-h' }, t('console.webhooks.title')),
    h('p', {}, t('console.webhooks.intro')),
    list,
    createForm(path),
  );
}

async function endpointCard(path: string, endpoint: Endpoint): Promise<HTMLElement> {
  const route = `${path}/webhooks/${encode(endpoint.id)}`;
  const { deliveries } = await call<{ deliveries: Delivery[] }>('GET', `${route}/deliveries?limit=10`);
  const state = endpoint.failing
    ? notice(
        'error',
        t('console.webhooks.failing', { since: formatTime(endpoint.failing_since ?? Date.now()) }),
      )
    : h('span', { class: 'hint' }, t('console.webhooks.healthy'));
  const trigger = button(t('console.webhooks.delete'), {
    class: 'danger',
    'data-webhook-delete': endpoint.id,
  });
  const card = h('li', { class: 'card', 'data-webhook': endpoint.id });
  const confirm = confirmInline(
    trigger,
    t('console.webhooks.delete_question', { url: endpoint.url }),
    t('console.webhooks.delete_confirm'),
    async () => {
      await call('DELETE', route);
      card.remove();
    },
  );
  card.append(
    h('h3', {}, h('code', {}, endpoint.url)),
    facts([
      [t('console.webhooks.endpoint_id'), h('code', {}, endpoint.id)],
      [t('console.webhooks.events'), endpoint.events.join(', ')],
      [t('console.webhooks.state'), state],
    ]),
    deliveries.length
      ? deliveriesTable(deliveries)
      : h('p', { class: 'hint' }, t('console.webhooks.no_deliveries')),
    trigger,
    confirm,
  );
  return card;
}

/**
 * The latest deliveries, newest first, each with when it was made: a table that scrolls inside its own box
 * on a narrow screen instead of widening the page.
 */
function deliveriesTable(deliveries: Delivery[]): HTMLElement {
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      { class: 'deliveries' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, t('console.webhooks.col.time')),
          h('th', { scope: 'col' }, t('console.webhooks.col.event')),
          h('th', { scope: 'col' }, t('console.webhooks.col.state')),
          h('th', { scope: 'col' }, t('console.webhooks.col.attempts')),
          h('th', { scope: 'col' }, t('console.webhooks.col.answer')),
        ),
      ),
      h(
        'tbody',
        {},
        deliveries.map((d) =>
          h(
            'tr',
            { 'data-delivery': d.id, 'data-state': d.state },
            h('td', { class: 'time' }, h('time', { datetime: d.created_at }, formatTime(d.created_at))),
            h('td', {}, d.type),
            h('td', {}, stateText(d.state)),
            h('td', {}, formatInteger(d.attempts)),
            h('td', {}, d.last_status !== null ? String(d.last_status) : (d.last_error ?? '—')),
          ),
        ),
      ),
    ),
  );
}

function createForm(path: string): HTMLElement {
  const url = field(
    t('console.webhooks.url'),
    { id: 'webhook-url', name: 'url', type: 'url', required: true, maxlength: '2000' },
    t('console.webhooks.url_hint'),
  );
  const boxes = EVENT_TYPES.map((type) => {
    const input = h('input', { type: 'checkbox', name: 'events', value: type, id: `webhook-event-${type}` });
    return {
      type,
      input: input as HTMLInputElement,
      row: h('div', { class: 'field check' }, input, h('label', { for: `webhook-event-${type}` }, type)),
    };
  });
  const result = h('div', { id: 'created-webhook' });
  const f = form(
    'new-webhook-form',
    url.wrapper,
    h(
      'fieldset',
      {},
      h('legend', {}, t('console.webhooks.events')),
      boxes.map((b) => b.row),
    ),
    h('div', { class: 'actions' }, submit(t('console.webhooks.add'), 'new-webhook-submit')),
  );
  onSubmit(f, async () => {
    const events = boxes.filter((b) => b.input.checked).map((b) => b.type);
    const created = await call<{ id: string; secret: string }>('POST', `${path}/webhooks`, {
      url: url.input.value.trim(),
      events,
    });
    // The secret exists only in this page's memory: leaving the page forgets it.
    result.replaceChildren(
      notice('warning', t('console.webhooks.secret_once')),
      secretBox(
        t('console.webhooks.secret'),
        t('console.webhooks.secret_copy'),
        created.secret,
        'created-webhook-secret',
      ),
    );
    return t('console.webhooks.added');
  });
  return h('div', {}, h('h3', {}, t('console.webhooks.add_title')), f, result);
}
