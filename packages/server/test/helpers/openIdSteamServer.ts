import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OpenID 2.0 OP on a local port, shaped like Steam's (https://steamcommunity.com/openid/login):
 *   - `GET /openid/login?openid.mode=checkid_setup…` auto-approves the configured Steam id and redirects
 *     the browser to `openid.return_to` with a positive assertion signed with HMAC-SHA256 over the
 *     key-value form of its signed fields, under a fresh private association (a stateless OP);
 *   - `POST /openid/login` with `openid.mode=check_authentication` recomputes that signature from the
 *     fields it is sent and answers `ns:…\nis_valid:true|false\n`; an association is checked once and
 *     then forgotten, as a stateless OP does (§11.4.2.1: never verify one assertion twice).
 * Its claimed ids are Steam's (`https://steamcommunity.com/openid/id/<steamid64>`) although it runs on
 * localhost: it stands in for Steam. `alwaysValid` makes it an attacker's OP that confirms anything.
 * Everything it is asked is recorded.
 */
export interface OpenIdSteamServer {
  /** `http://127.0.0.1:<port>/openid/login`: what `op_endpoint` is configured to. */
  endpoint: string;
  /** The Steam id the next checkid_setup approves. */
  steamId: string;
  /** Added to the clock the response nonces are stamped with (negative: an old assertion). */
  nonceClockOffsetMs: number;
  /** checkid_setup requests received (their query). */
  setups: URLSearchParams[];
  /** check_authentication requests received (their form body) and what was answered. */
  checks: { fields: URLSearchParams; isValid: boolean }[];
  close(): Promise<void>;
}

export interface OpenIdSteamServerOptions {
  steamId?: string;
  /** An attacker's OP: check_authentication answers is_valid:true whatever it is sent. */
  alwaysValid?: boolean;
}

const NS = 'http://specs.openid.net/auth/2.0';
const IDENTIFIER_SELECT = 'http://specs.openid.net/auth/2.0/identifier_select';
// Steam's own list, in Steam's order.
const SIGNED = [
  'signed',
  'op_endpoint',
  'claimed_id',
  'identity',
  'return_to',
  'response_nonce',
  'assoc_handle',
];

const keyValueForm = (pairs: [string, string][]): string => pairs.map(([k, v]) => `${k}:${v}\n`).join('');

function signature(secret: Buffer, fields: URLSearchParams, signedList: string[]): Buffer {
  const form = keyValueForm(signedList.map((name) => [name, fields.get(`openid.${name}`) ?? '']));
  return createHmac('sha256', secret).update(form, 'utf8').digest();
}

export async function startOpenIdSteamServer(
  options: OpenIdSteamServerOptions = {},
): Promise<OpenIdSteamServer> {
  const associations = new Map<string, Buffer>();
  const setups: URLSearchParams[] = [];
  const checks: OpenIdSteamServer['checks'] = [];
  let endpoint = '';
  const state = {
    steamId: options.steamId ?? '76561197960287930',
    nonceClockOffsetMs: 0,
  };

  const kvAnswer = (res: http.ServerResponse, status: number, pairs: [string, string][]) =>
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(keyValueForm(pairs));

  function checkidSetup(query: URLSearchParams, res: http.ServerResponse): void {
    setups.push(query);
    const returnTo = query.get('openid.return_to') ?? '';
    const realm = query.get('openid.realm') ?? '';
    const wellFormed =
      query.get('openid.ns') === NS &&
      query.get('openid.claimed_id') === IDENTIFIER_SELECT &&
      query.get('openid.identity') === IDENTIFIER_SELECT &&
      URL.canParse(returnTo) &&
      realm !== '' &&
      // §9.2.1: return_to must match the realm (here: start with it, as Steam checks).
      returnTo.startsWith(realm);
    if (!wellFormed) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('bad checkid_setup request');
      return;
    }
    const handle = `${Date.now()}${randomBytes(8).toString('hex')}`;
    const secret = randomBytes(32);
    associations.set(handle, secret);
    const claimedId = `https://steamcommunity.com/openid/id/${state.steamId}`;
    const stamp = new Date(Date.now() + state.nonceClockOffsetMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const assertion = new URLSearchParams({
      'openid.ns': NS,
      'openid.mode': 'id_res',
      'openid.op_endpoint': endpoint,
      'openid.claimed_id': claimedId,
      'openid.identity': claimedId,
      'openid.return_to': returnTo,
      'openid.response_nonce': `${stamp}${randomBytes(6).toString('base64url')}`,
      'openid.assoc_handle': handle,
      'openid.signed': SIGNED.join(','),
    });
    assertion.set('openid.sig', signature(secret, assertion, SIGNED).toString('base64'));
    const target = new URL(returnTo);
    for (const [name, value] of assertion) target.searchParams.append(name, value);
    res.writeHead(302, { location: target.toString() }).end();
  }

  function checkAuthentication(fields: URLSearchParams, res: http.ServerResponse): void {
    let isValid = false;
    const handle = fields.get('openid.assoc_handle') ?? '';
    const secret = associations.get(handle);
    if (options.alwaysValid) {
      isValid = true;
    } else if (secret !== undefined) {
      associations.delete(handle);
      const signedList = (fields.get('openid.signed') ?? '').split(',');
      const expected = signature(secret, fields, signedList);
      const given = Buffer.from(fields.get('openid.sig') ?? '', 'base64');
      isValid = given.length === expected.length && timingSafeEqual(given, expected);
    }
    checks.push({ fields, isValid });
    kvAnswer(res, 200, [
      ['ns', NS],
      ['is_valid', String(isValid)],
    ]);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', endpoint);
      if (url.pathname !== '/openid/login') {
        res.writeHead(404).end();
        return;
      }
      if (req.method === 'GET' && url.searchParams.get('openid.mode') === 'checkid_setup') {
        checkidSetup(url.searchParams, res);
        return;
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (req.method === 'POST' && form.get('openid.mode') === 'check_authentication') {
        checkAuthentication(form, res);
        return;
      }
      kvAnswer(res, 400, [
        ['ns', NS],
        ['error', 'unsupported request'],
      ]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openid/login`;

  return {
    endpoint,
    get steamId() {
      return state.steamId;
    },
    set steamId(value: string) {
      state.steamId = value;
    },
    get nonceClockOffsetMs() {
      return state.nonceClockOffsetMs;
    },
    set nonceClockOffsetMs(value: number) {
      state.nonceClockOffsetMs = value;
    },
    setups,
    checks,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** A local Steam Web API: `GET /ISteamUser/GetPlayerSummaries/v2/?key=…&steamids=…`, Steam's answer shape. */
export interface SteamWebApiServer {
  url: string;
  /** The query of every request received. */
  requests: URLSearchParams[];
  close(): Promise<void>;
}

export async function startSteamWebApiServer(options: {
  key: string;
  personaNames: Record<string, string>;
}): Promise<SteamWebApiServer> {
  const requests: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    requests.push(url.searchParams);
    if (url.pathname !== '/ISteamUser/GetPlayerSummaries/v2/') {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('key') !== options.key) {
      // Steam answers a wrong key with 403 and an HTML page.
      res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>Forbidden</body></html>');
      return;
    }
    const ids = (url.searchParams.get('steamids') ?? '').split(',');
    const players = ids
      .filter((id) => options.personaNames[id] !== undefined)
      .map((id) => ({
        steamid: id,
        communityvisibilitystate: 3,
        profilestate: 1,
        personaname: options.personaNames[id],
        profileurl: `https://steamcommunity.com/profiles/${id}/`,
      }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ response: { players } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
