import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createClient, createUser, post, type TestClient, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A service account's client_credentials token on the org's management routes (decisions §9 "Machines",
 * docs/machines.md): accepted as a member's login JWT of the matching role would be, by scope; never on
 * what only people may do (secrets, deletion, members, service accounts).
 */
describe("service accounts on the organization's management routes", () => {
  let server: TestServer;
  let owner: TestUser;
  let app: TestClient;
  let org: string;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server.url);
    app = await createClient(server.url, owner, ['https://machines.example/cb']);
    org = `org_u${owner.uuid}`;
    for (const [name, scopes] of Object.entries({
      reader: ['apps:read'],
      writer: ['apps:read', 'apps:write'],
      hooks: ['apps:read', 'webhooks:write'],
    })) {
      const made = await post(
        `${server.url}/v1/orgs/${org}/service-accounts`,
        { name, scopes },
        bearer(owner.loginToken),
      );
      expect(made.status).toBe(201);
      const { client_id, client_secret } = (await made.json()) as {
        client_id: string;
        client_secret: string;
      };
      const issued = await post(`${server.url}/oauth/token`, {
        grant_type: 'client_credentials',
        client_id,
        client_secret,
      });
      tokens[name] = ((await issued.json()) as { access_token: string }).access_token;
    }
  });
  afterAll(() => server?.close());

  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...bearer(token), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('reads the org’s apps with apps:read', async () => {
    const listed = await call('GET', `/v1/orgs/${org}/apps`, tokens.reader!);
    expect(listed.status).toBe(200);
    expect((listed.body.apps as { client_id: string }[]).map((a) => a.client_id)).toContain(app.clientId);
    expect((await call('GET', `/v1/orgs/${org}/apps/${app.clientId}`, tokens.reader!)).status).toBe(200);
    expect((await call('GET', `/v1/dev-user/clients/${app.clientId}/activity`, tokens.reader!)).status).toBe(
      200,
    );
  });

  it('edits the app with apps:write, and only with it', async () => {
    const refused = await call('PATCH', `/v1/dev-user/clients/${app.clientId}`, tokens.reader!, {
      name: 'Nope',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    const edited = await call('PATCH', `/v1/dev-user/clients/${app.clientId}`, tokens.writer!, {
      name: 'Renamed by CI',
    });
    expect(edited.status).toBe(200);
    expect(edited.body.client).toMatchObject({ name: 'Renamed by CI' });
  });

  it('manages webhooks with webhooks:write (apps:write is not enough)', async () => {
    const body = { url: 'https://hooks.example/dauth', events: ['grant.created'] };
    const refused = await call('POST', `/v1/dev-user/clients/${app.clientId}/webhooks`, tokens.writer!, body);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('insufficient_scope');
    const made = await call('POST', `/v1/dev-user/clients/${app.clientId}/webhooks`, tokens.hooks!, body);
    expect(made.status).toBe(201);
    expect((await call('GET', `/v1/dev-user/clients/${app.clientId}/webhooks`, tokens.hooks!)).status).toBe(
      200,
    );
  });

  it('never rotates secrets, deletes apps, reads members or manages service accounts', async () => {
    for (const [method, path] of [
      ['POST', `/v1/dev-user/clients/${app.clientId}/rotate-secret`],
      ['DELETE', `/v1/dev-user/clients/${app.clientId}`],
      ['GET', `/v1/orgs/${org}/members`],
      ['GET', `/v1/orgs/${org}/service-accounts`],
      ['GET', '/v1/dev-user/clients'],
    ] as const) {
      const res = await call(method, path, tokens.writer!);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
  });

  it('is refused on another organization’s app as a stranger would be (404)', async () => {
    const other = await createUser(server.url);
    const theirs = await createClient(server.url, other, ['https://theirs.example/cb']);
    const res = await call('PATCH', `/v1/dev-user/clients/${theirs.clientId}`, tokens.writer!, { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('client_not_found');
  });
});
