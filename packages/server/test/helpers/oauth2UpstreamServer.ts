import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real OAuth 2.0 authorization server on a local port, shaped like Discord's
 * (https://discord.com/developers/docs/topics/oauth2):
 *   - `GET /oauth2/authorize` auto-approves and redirects to `redirect_uri` with `code` and `state`;
 *     it requires a PKCE S256 challenge;
 *   - `POST /api/oauth2/token` exchanges a code once, checking the client (form or HTTP Basic), the
 *     `redirect_uri` and the PKCE verifier (a wrong one: 400 `invalid_grant`, as Discord answers);
 *   - `GET /api/users/@me` answers the configured user for a valid bearer access token (Discord's shape
 *     by default; any object may be configured, e.g. OIDC-shaped claims).
 * Every request is recorded.
 */
export interface OAuth2UpstreamServer {
  origin: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string;
  clientId: string;
  clientSecret: string;
  /** What `/api/users/@me` answers; may be changed between sign-ins. */
  userinfo: Record<string, unknown>;
  authorizeRequests: URLSearchParams[];
  tokenRequests: { form: URLSearchParams; clientAuth: 'basic' | 'post' | 'none'; status: number }[];
  userinfoRequests: number;
  close(): Promise<void>;
}

export const discordUser = {
  id: '80351110224678912',
  username: 'nelly',
  discriminator: '0',
  global_name: 'Nelly',
  avatar: '8342729096ea3675442027381ff50dfe',
  verified: true,
  email: 'nelly@example.com',
  flags: 64,
  mfa_enabled: false,
};

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  used: boolean;
}

export async function startOAuth2UpstreamServer(
  options: { clientId?: string; clientSecret?: string; userinfo?: Record<string, unknown> } = {},
): Promise<OAuth2UpstreamServer> {
  const clientId = options.clientId ?? '1100000000000000001';
  const clientSecret = options.clientSecret ?? randomBytes(16).toString('hex');
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Set<string>();
  let origin = '';
  const state = {
    userinfo: options.userinfo ?? { ...discordUser },
    userinfoRequests: 0,
  };
  const authorizeRequests: URLSearchParams[] = [];
  const tokenRequests: OAuth2UpstreamServer['tokenRequests'] = [];

  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));

  function authorize(query: URLSearchParams, res: http.ServerResponse): void {
    authorizeRequests.push(query);
    const redirectUri = query.get('redirect_uri') ?? '';
    const challenge = query.get('code_challenge') ?? '';
    if (query.get('client_id') !== clientId || !URL.canParse(redirectUri)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid client or redirect_uri');
      return;
    }
    const back = new URL(redirectUri);
    const fail = (error: string) => {
      back.searchParams.set('error', error);
      if (query.get('state') !== null) back.searchParams.set('state', query.get('state')!);
      res.writeHead(302, { location: back.toString() }).end();
    };
    if (query.get('response_type') !== 'code') return fail('unsupported_response_type');
    if (query.get('code_challenge_method') !== 'S256' || !/^[\w-]{43}$/.test(challenge)) {
      return fail('invalid_request');
    }
    const code = randomBytes(16).toString('hex');
    codes.set(code, { clientId, redirectUri, challenge, used: false });
    back.searchParams.set('code', code);
    if (query.get('state') !== null) back.searchParams.set('state', query.get('state')!);
    res.writeHead(302, { location: back.toString() }).end();
  }

  function token(req: http.IncomingMessage, form: URLSearchParams, res: http.ServerResponse): void {
    let clientAuth: 'basic' | 'post' | 'none' = 'none';
    let id = '';
    let secret = '';
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      clientAuth = 'basic';
      const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    } else if (form.get('client_secret') !== null) {
      clientAuth = 'post';
      id = form.get('client_id') ?? '';
      secret = form.get('client_secret') ?? '';
    }
    const answer = (status: number, body: unknown) => {
      tokenRequests.push({ form, clientAuth, status });
      json(res, status, body);
    };
    if (id !== clientId || secret !== clientSecret) return answer(401, { error: 'invalid_client' });
    if (form.get('grant_type') !== 'authorization_code')
      return answer(400, { error: 'unsupported_grant_type' });
    const issued = codes.get(form.get('code') ?? '');
    if (!issued || issued.used || issued.redirectUri !== form.get('redirect_uri')) {
      return answer(400, { error: 'invalid_grant', error_description: 'Invalid "code" in request.' });
    }
    issued.used = true;
    const verifier = form.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier, 'ascii').digest('base64url') !== issued.challenge) {
      return answer(400, { error: 'invalid_grant', error_description: 'Invalid "code_verifier"' });
    }
    const accessToken = randomBytes(20).toString('hex');
    accessTokens.add(accessToken);
    answer(200, {
      token_type: 'Bearer',
      access_token: accessToken,
      expires_in: 604800,
      refresh_token: randomBytes(20).toString('hex'),
      scope: 'identify email',
    });
  }

  function userinfo(req: http.IncomingMessage, res: http.ServerResponse): void {
    state.userinfoRequests++;
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (!bearer || !accessTokens.has(bearer[1]!)) {
      json(res, 401, { message: '401: Unauthorized', code: 0 });
      return;
    }
    json(res, 200, state.userinfo);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', origin);
      const route = `${req.method} ${url.pathname}`;
      if (route === 'GET /oauth2/authorize') return authorize(url.searchParams, res);
      if (route === 'POST /api/oauth2/token') {
        return token(req, new URLSearchParams(Buffer.concat(chunks).toString('utf8')), res);
      }
      if (route === 'GET /api/users/@me') return userinfo(req, res);
      json(res, 404, { message: '404: Not Found', code: 0 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    authorizationEndpoint: `${origin}/oauth2/authorize`,
    tokenEndpoint: `${origin}/api/oauth2/token`,
    userinfoEndpoint: `${origin}/api/users/@me`,
    clientId,
    clientSecret,
    get userinfo() {
      return state.userinfo;
    },
    set userinfo(value: Record<string, unknown>) {
      state.userinfo = value;
    },
    authorizeRequests,
    tokenRequests,
    get userinfoRequests() {
      return state.userinfoRequests;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
