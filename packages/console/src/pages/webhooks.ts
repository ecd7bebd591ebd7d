import { call, encode } from '../api.js';
import { button, facts, field, h, notice, secretBox } from '../dom.js';
import { formatTime } from '../format.js';
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
    : h('p', { id: 'webhook-list' }, 'No webhook endpoints yet.');
  return h(
    'section',
    { 'aria-labelledby': 'webhooks-h' },
    h('h2', { id: 'webhooks-h' }, 'Webhooks'),
    h(
      'p',
      {},
      'Signed events (Standard Webhooks) sent to your backend when players buy, consume, trade or log out. Verify them with the SDK.',
    ),
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
        `Failing since ${formatTime(endpoint.failing_since ?? Date.now())}: a delivery was given up after 24 hours of retries.`,
      )
    : h('span', { class: 'hint' }, 'Healthy');
  const trigger = button('Delete endpoint…', { class: 'danger', 'data-webhook-delete': endpoint.id });
  const card = h('li', { class: 'card', 'data-webhook': endpoint.id });
  const confirm = confirmInline(
    trigger,
    `Delete the endpoint ${endpoint.url}? Its pending deliveries are dropped.`,
    'Delete endpoint',
    async () => {
      await call('DELETE', route);
      card.remove();
    },
  );
  card.append(
    h('h3', {}, h('code', {}, endpoint.url)),
    facts([
      ['Endpoint id', h('code', {}, endpoint.id)],
      ['Events', endpoint.events.join(', ')],
      ['State', state],
    ]),
    deliveries.length
      ? h(
          'table',
          { class: 'deliveries' },
          h(
            'tr',
            {},
            h('th', {}, 'Event'),
            h('th', {}, 'State'),
            h('th', {}, 'Attempts'),
            h('th', {}, 'Last answer'),
          ),
          deliveries.map((d) =>
            h(
              'tr',
              { 'data-delivery': d.id, 'data-state': d.state },
              h('td', {}, d.type),
              h('td', {}, d.state),
              h('td', {}, String(d.attempts)),
              h('td', {}, d.last_status !== null ? String(d.last_status) : (d.last_error ?? '—')),
            ),
          ),
        )
      : h('p', { class: 'hint' }, 'No deliveries yet.'),
    trigger,
    confirm,
  );
  return card;
}

function createForm(path: string): HTMLElement {
  const url = field(
    'Endpoint URL',
    { id: 'webhook-url', name: 'url', type: 'url', required: true, maxlength: '2000' },
    'https; private and cloud metadata addresses are refused.',
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
      h('legend', {}, 'Events'),
      boxes.map((b) => b.row),
    ),
    h('div', { class: 'actions' }, submit('Add endpoint', 'new-webhook-submit')),
  );
  onSubmit(f, async () => {
    const events = boxes.filter((b) => b.input.checked).map((b) => b.type);
    const created = await call<{ id: string; secret: string }>('POST', `${path}/webhooks`, {
      url: url.input.value.trim(),
      events,
    });
    // The secret exists only in this page's memory: leaving the page forgets it.
    result.replaceChildren(
      notice('warning', 'Copy the signing secret now: it is shown only once. Rotate it if it is lost.'),
      secretBox('Signing secret', created.secret, 'created-webhook-secret'),
    );
    return 'Endpoint added; reload to see it in the list.';
  });
  return h('div', {}, h('h3', {}, 'Add an endpoint'), f, result);
}
