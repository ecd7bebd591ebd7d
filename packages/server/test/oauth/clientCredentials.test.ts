import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bearer, createClient, createUser, post, type TestClient } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * `grant_type=client_credentials` (RFC 6749 §4.4, docs/machines.md) through oauth4webapi against a real
 * listening server: a token for the client itself that introspection shows as such, and that every
 * route acting for a person refuses.
 */
describe('client_credentials grant', () => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let app: TestClient;
  let other: TestClient;

  beforeAll(async () => {
    server = await startTestServer();
    const issuer = new URL(server.config.publicUrl);
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    const owner = await createUser(server.url);
    app = await createClient(server.url, owner, ['https://app.example/cb']);
    other = await createClient(server.url, owner, ['https://other.example/cb']);
  });
  afterAll(() => server?.close());

  const clientToken = async (client: TestClient, scope?: string) => {
    const oauthClient: oauth.Client = { client_id: client.clientId };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      oauthClient,
      oauth.ClientSecretBasic(client.clientSecret),
      new URLSearchParams(scope === undefined ? {} : { scope }),
      insecure,
    );
    return oauth.processClientCredentialsResponse(as, oauthClient, response);
  };

  const introspect = async (client: TestClient, token: string) => {
    const response = await oauth.introspectionRequest(
      as,
      { client_id: client.clientId },
      oauth.ClientSecretPost(client.clientSecret),
      token,
      insecure,
    );
    return (await response.json()) as Record<string, unknown>;
  };

  it('is advertised in both discovery documents', async () => {
    expect(as.grant_types_supported).toContain('client_credentials');
    const openid = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as {
      grant_types_supported: string[];
    };
    expect(openid.grant_types_supported).toContain('client_credentials');
  });

  it('issues an access token for the client itself: sub = client_id, the scope, no refresh or id token', async () => {
    const result = await clientToken(app, 'inventory:read inventory:write');
    expect(result.token_type).toBe('bearer');
    expect(result.expires_in).toBe(3600);
    expect(result.scope).toBe('inventory:read inventory:write');
    expect(result).not.toHaveProperty('refresh_token');
    expect(result).not.toHaveProperty('id_token');
    expect(result).not.toHaveProperty('user_id');
    const payload = JSON.parse(
      Buffer.from(result.access_token.split('.')[1]!, 'base64url').toString(),
    ) as Record<string, unknown>;
    expect(payload).toMatchObject({
      sub: app.clientId,
      client_id: app.clientId,
      scope: 'inventory:read inventory:write',
      token_use: 'client',
      iss: server.config.publicUrl,
    });

    const seen = await introspect(app, result.access_token);
    expect(seen).toMatchObject({
      active: true,
      client_id: app.clientId,
      sub: app.clientId,
      token_use: 'client',
      scope: 'inventory:read inventory:write',
    });
    expect(seen).not.toHaveProperty('user_id');
    // Another client never sees it active.
    expect(await introspect(other, result.access_token)).toMatchObject({ active: false });
  });

  it('grants no scope when none is asked, and refuses management scopes and malformed ones', async () => {
    const bare = await clientToken(app);
    expect(bare).not.toHaveProperty('scope');
    for (const scope of ['apps:write', 'players:read inventory:read', 'bad"scope']) {
      const res = await post(`${server.url}/oauth/token`, {
        grant_type: 'client_credentials',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        scope,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_scope' });
    }
  });

  it('refuses a wrong secret with invalid_client', async () => {
    const res = await post(`${server.url}/oauth/token`, {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      client_secret: 'not-the-secret',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('is refused by every route acting for a person: PIN, wallet, consents, session keys, validate', async () => {
    const { access_token: token } = await clientToken(app, 'inventory:read');
    const attempts: [string, string, unknown?][] = [
      ['POST', '/v1/pin/verify', { pin: '123456' }],
      ['POST', '/v1/pin/register', { pin: '123456' }],
      ['GET', '/v1/dev-user/wallet'],
      ['GET', '/v1/dev-user/consents'],
      ['GET', '/v1/wallet/session-keys'],
      ['GET', '/v1/oauth/validate'],
      ['GET', '/oauth/userinfo'],
    ];
    for (const [method, path, body] of attempts) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { ...bearer(token), ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(await res.json()).toMatchObject({ error: 'invalid_token' });
    }
  });
});
