// Writes sdk/vectors/webhooks.json: deliveries signed by the `standardwebhooks` npm package (the
// reference implementation) and what each SDK's verifier must answer. Run from the repository root:
//   node sdk/vectors/generateWebhookVectors.mjs && npx prettier --write sdk/vectors/webhooks.json
// packages/sdk/test/webhooks.test.ts fails when the file and this script disagree.
import { writeFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';

const secret = (seed) =>
  `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 7 + seed) % 256)).toString('base64')}`;
const NEW = secret(1);
const OLD = secret(2);
const OTHER = secret(3);
const T = 1_764_000_000; // the deliveries' webhook-timestamp (seconds)
const sign = (key, id, ts, body) => new Webhook(key).sign(id, new Date(ts * 1000), body);

const samples = {
  'grant.created': { client_id: 'c0ffee', grant_id: 'g_1', user_id: '42', slot_id: '1234567890123456789' },
  'grant.revoked': { client_id: 'c0ffee', grant_id: 'g_1', user_id: '42', reason: 'logout' },
  'status.changed': { client_id: 'c0ffee', user_id: '42', status: 'logged_out', previous: 'logged_in' },
  'slot.created': {
    client_id: 'c0ffee',
    slot_id: '1234567890123456789',
    user_id: '42',
    meta_idx: 0,
    content_address: '0x00000000000000000000000000000000000000aa',
  },
  'slot.transferred': {
    client_id: 'c0ffee',
    slot_id: '1234567890123456789',
    from_user_id: '42',
    to_user_id: '43',
    tx_hash: `0x${'ab'.repeat(32)}`,
  },
  'market.listing.sold': {
    client_id: 'c0ffee',
    listing_id: 'l_1',
    slot_id: '1234567890123456789',
    seller_user_id: '42',
    buyer_user_id: '43',
    price: '1000000000000000000',
    tx_hash: `0x${'cd'.repeat(32)}`,
  },
  'content.purchased': {
    client_id: 'c0ffee',
    cuid: 'game-1',
    slot_id: '1234567890123456789',
    slot_address: '0x00000000000000000000000000000000000000aa',
    user_id: '42',
    amount: '500000000000000000',
    native_paid: '500000000000000000',
    platform_fee: '75000000000000000',
    provider_received: '425000000000000000',
    tx_hash: `0x${'ef'.repeat(32)}`,
  },
  'content.consumed': {
    client_id: 'c0ffee',
    record_id: 'r_1',
    cuid: 'game-1',
    slot_id: '1234567890123456789',
    slot_address: '0x00000000000000000000000000000000000000aa',
    amount: '123',
    balance_after: '877',
    used_after: '123',
    tx_hash: `0x${'12'.repeat(32)}`,
    block_number: '77',
  },
  'content.released': {
    client_id: 'c0ffee',
    cuid: 'game-1',
    slot_address: '0x00000000000000000000000000000000000000aa',
    usage: '123',
    amount: '4920',
    tx_hash: `0x${'34'.repeat(32)}`,
  },
  'session_key.granted': {
    client_id: 'c0ffee',
    user_uuid: '42',
    session_key: '0x00000000000000000000000000000000000000bb',
    valid_until: '2025-12-24T16:00:00.000Z',
    tx_hash: `0x${'56'.repeat(32)}`,
  },
  'session_key.revoked': {
    client_id: 'c0ffee',
    user_uuid: '42',
    session_key: '0x00000000000000000000000000000000000000bb',
    valid_until: '2025-12-24T16:00:00.000Z',
    tx_hash: null,
  },
};

const deliveries = [];
let n = 0;
for (const [type, data] of Object.entries(samples)) {
  const id = `msg_vector${String(++n).padStart(3, '0')}`;
  const body = JSON.stringify({ type, timestamp: '2025-11-24T16:00:00.000Z', data });
  deliveries.push({
    name: `${type} signed with the endpoint secret`,
    secrets: [NEW],
    now: T + 10,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(T),
      'webhook-signature': sign(NEW, id, T, body),
    },
    body,
    expect: { valid: true, type, data },
  });
}
const id = 'msg_vector100';
const body = JSON.stringify({
  type: 'status.changed',
  timestamp: '2025-11-24T16:00:00.000Z',
  data: samples['status.changed'],
});
const both = `${sign(NEW, id, T, body)} ${sign(OLD, id, T, body)}`;
const good = {
  'webhook-id': id,
  'webhook-timestamp': String(T),
  'webhook-signature': sign(NEW, id, T, body),
};
const invalid = (name, extra) => ({
  name,
  secrets: [NEW],
  now: T,
  headers: good,
  body,
  expect: { valid: false },
  ...extra,
});
deliveries.push(
  {
    name: 'rotation grace: two signatures, the receiver still holds the old secret',
    secrets: [OLD],
    now: T,
    headers: { ...good, 'webhook-signature': both },
    body,
    expect: { valid: true, type: 'status.changed', data: samples['status.changed'] },
  },
  {
    name: 'rotation grace: two signatures, the receiver holds the new secret',
    secrets: [NEW],
    now: T,
    headers: { ...good, 'webhook-signature': both },
    body,
    expect: { valid: true, type: 'status.changed', data: samples['status.changed'] },
  },
  {
    name: 'the receiver tries its new and old secret',
    secrets: [OTHER, OLD],
    now: T,
    headers: { ...good, 'webhook-signature': sign(OLD, id, T, body) },
    body,
    expect: { valid: true, type: 'status.changed', data: samples['status.changed'] },
  },
  {
    name: 'timestamp 300 s old is still accepted',
    secrets: [NEW],
    now: T + 300,
    headers: good,
    body,
    expect: { valid: true, type: 'status.changed', data: samples['status.changed'] },
  },
  invalid('a body changed by one character', { body: body.replace('logged_out', 'logged_in_') }),
  invalid('signed with another secret', { secrets: [OTHER] }),
  invalid('another webhook-id than the one signed', { headers: { ...good, 'webhook-id': 'msg_other' } }),
  invalid('timestamp 301 s old (a replay)', { now: T + 301 }),
  invalid('timestamp 301 s in the future', { now: T - 301 }),
  invalid('another timestamp than the one signed', {
    headers: { ...good, 'webhook-timestamp': String(T + 1) },
  }),
  invalid('missing webhook-signature', { headers: { 'webhook-id': id, 'webhook-timestamp': String(T) } }),
  invalid('a v2 signature only', {
    headers: { ...good, 'webhook-signature': good['webhook-signature'].replace('v1,', 'v2,') },
  }),
  invalid('an empty signature list', { headers: { ...good, 'webhook-signature': '' } }),
);

writeFileSync(
  new URL('./webhooks.json', import.meta.url),
  `${JSON.stringify({ description: 'Webhook deliveries signed by the standardwebhooks npm package (generateWebhookVectors.mjs); each SDK verifier must accept exactly the valid ones at `now` (seconds).', deliveries }, null, 2)}\n`,
);
