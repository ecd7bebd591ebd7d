import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitAddress } from '../../src/services/network/ipAddresses.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Decisions §8: rate-limit keys group IPv6 addresses by /64 (IPv4-mapped IPv6 counts as the IPv4
 * address), `/metrics` shares the admin key's limiter, and the public routes that had none get a
 * per-address limit of their own.
 */
describe('rateLimitAddress', () => {
  it.each([
    ['203.0.113.5', '203.0.113.5'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['::ffff:cb00:7105', '203.0.113.5'],
    ['2001:db8:a:b::1', '2001:db8:a:b::/64'],
    ['2001:db8:a:b:ffff:ffff:ffff:ffff', '2001:db8:a:b::/64'],
    ['2001:0db8:000a:000b:1:2:3:4', '2001:db8:a:b::/64'],
    ['2001:db8:a:c::1', '2001:db8:a:c::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (ip, key) => {
    expect(rateLimitAddress(ip)).toBe(key);
  });
});

describe('per-address limits on a running service', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        TRUST_PROXY: 'true',
        RATE_LIMITS: 'chain_info=3/1m, authorize=3/1m, end_session=3/1m, market_listing=3/1m, admin=3/1m',
      },
    });
  }, 120_000);
  afterAll(() => server?.close());

  /** One GET as forwarded by a loopback proxy (TRUST_PROXY) for `client`. */
  const getFrom = async (client: string, url: string, headers: Record<string, string> = {}) =>
    (
      await server.app.inject({
        method: 'GET',
        url,
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': client, ...headers },
      })
    ).statusCode;

  it('two addresses of one IPv6 /64 share a bucket; another /64 has its own', async () => {
    expect(await getFrom('2001:db8:1:2::1', '/v1/chain/info')).toBe(200);
    expect(await getFrom('2001:db8:1:2::2', '/v1/chain/info')).toBe(200);
    expect(await getFrom('2001:db8:1:2:abcd:ef01:2345:6789', '/v1/chain/info')).toBe(200);
    expect(await getFrom('2001:db8:1:2::ffff', '/v1/chain/info')).toBe(429);
    expect(await getFrom('2001:db8:1:3::1', '/v1/chain/info')).toBe(200);
  });

  it('an IPv4-mapped IPv6 address shares the IPv4 address bucket', async () => {
    for (let i = 0; i < 3; i++) expect(await getFrom('198.51.100.20', '/v1/chain/info')).toBe(200);
    expect(await getFrom('::ffff:198.51.100.20', '/v1/chain/info')).toBe(429);
  });

  it.each([
    ['GET /oauth/authorize', '/oauth/authorize?client_id=nope&redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fcb'],
    ['/oauth/end_session', '/oauth/end_session'],
    ['GET /v1/chain/info', '/v1/chain/info'],
    ['GET /v1/market/listings/{id}', '/v1/market/listings/00000000-0000-4000-8000-000000000000'],
  ])('%s answers 429 rate_limited past its limit', async (_route, url) => {
    const client = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
    for (let i = 0; i < 3; i++) expect(await getFrom(client, url)).not.toBe(429);
    const blocked = await server.app.inject({
      method: 'GET',
      url,
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': client },
    });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toMatchObject({ success: false, error: 'rate_limited' });
  });

  it('/metrics counts in the admin key limiter: key guesses there are cut off like on /v1/admin', async () => {
    const client = '192.0.2.77';
    const guess = { authorization: 'Bearer wrong-key' };
    expect(await getFrom(client, '/metrics', guess)).toBe(401);
    expect(await getFrom(client, '/v1/admin/audit', guess)).toBe(401);
    expect(await getFrom(client, '/metrics', guess)).toBe(401);
    expect(await getFrom(client, '/metrics', guess)).toBe(429);
    // The right key from that address waits too: the bucket is the address's, not the key's.
    const key = { authorization: `Bearer ${server.services.secrets.adminApiKey}` };
    expect(await getFrom(client, '/metrics', key)).toBe(429);
    expect(await getFrom('192.0.2.78', '/metrics', key)).toBe(200);
  });

  it('/readyz counts in the admin key limiter only when it sends a key; other routes never do', async () => {
    const guess = { authorization: 'Bearer wrong-key' };
    // Probes without a key and other routes' requests leave the address's admin allowance whole.
    for (let i = 0; i < 3; i++) expect(await getFrom('192.0.2.90', '/readyz')).not.toBe(429);
    for (let i = 0; i < 3; i++) expect(await getFrom('192.0.2.90', '/v1/chain/info', guess)).toBe(200);
    expect(await getFrom('192.0.2.90', '/v1/admin/audit', guess)).toBe(401);
    // A /readyz with a key compares it: it uses up the same allowance as /v1/admin.
    expect(await getFrom('192.0.2.91', '/readyz', guess)).toBe(401);
    expect(await getFrom('192.0.2.91', '/readyz', guess)).toBe(401);
    expect(await getFrom('192.0.2.91', '/v1/admin/audit', guess)).toBe(401);
    expect(await getFrom('192.0.2.91', '/v1/admin/audit', guess)).toBe(429);
  });
});
