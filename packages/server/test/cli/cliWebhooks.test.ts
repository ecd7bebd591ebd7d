import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import type { TestUser } from '../helpers/http.js';
import { runCli as dauth, startServerWithApp, type CliAppFixture } from './cliRunner.js';

describe('dauth webhook create | list | rotate-secret | delete through the running server', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let owner: TestUser;
  let clientId: string;
  let fixture: CliAppFixture;
  beforeAll(async () => {
    fixture = await startServerWithApp({ name: 'Hooked game', redirect_uris: ['https://hooked.example/cb'] });
    ({ server, env, owner, clientId } = fixture);
  }, 60_000);
  afterAll(() => fixture.close());

  const asOwner = () => ['--client-id', clientId, '--owner-email', owner.email, '--password-stdin'];

  it('creates (secret printed once), lists, rotates and deletes an endpoint as the app owner', async () => {
    const created = await dauth(
      [
        'webhook',
        'create',
        ...asOwner(),
        '--url',
        'https://hooks.example/dauth',
        '--event',
        'content.purchased',
        '--event',
        'grant.created',
      ],
      env,
      `${owner.password}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout) as {
      id: string;
      secret: string;
      events: string[];
      url: string;
    };
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(endpoint.events).toEqual(['content.purchased', 'grant.created']);

    const listed = await dauth(['webhook', 'list', ...asOwner()], env, `${owner.password}\n`);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain('whsec_');
    expect(JSON.parse(listed.stdout)).toMatchObject({
      webhooks: [{ id: endpoint.id, url: 'https://hooks.example/dauth', failing: false }],
    });

    const rotated = await dauth(
      ['webhook', 'rotate-secret', ...asOwner(), '--webhook-id', endpoint.id],
      env,
      `${owner.password}\n`,
    );
    expect(rotated.code).toBe(0);
    const { secret } = JSON.parse(rotated.stdout) as { secret: string };
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);

    const metadata = await dauth(
      [
        'webhook',
        'create',
        ...asOwner(),
        '--url',
        'http://169.254.169.254/latest',
        '--event',
        'grant.created',
      ],
      env,
      `${owner.password}\n`,
    );
    expect(metadata.code).toBe(1);
    expect(JSON.parse(metadata.stderr)).toMatchObject({ success: false, error: 'invalid_webhook_url' });

    const deleted = await dauth(
      ['webhook', 'delete', ...asOwner(), '--webhook-id', endpoint.id],
      env,
      `${owner.password}\n`,
    );
    expect(deleted.code).toBe(0);
    expect(
      await server.services.webhooks.list({ kind: 'user', userId: Number(owner.uuid) }, clientId),
    ).toEqual([]);
  });
});
