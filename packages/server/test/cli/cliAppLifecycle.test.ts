import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import { createUser, type TestUser } from '../helpers/http.js';
import { errorOf, runCli as dauth, startServerWithApp, type CliAppFixture } from './cliRunner.js';

describe('dauth client update | rotate-secret | delete through the running server', () => {
  let server: TestServer;
  let env: Record<string, string>;
  let owner: TestUser;
  let clientId: string;
  let oldSecret: string;
  let fixture: CliAppFixture;
  beforeAll(async () => {
    fixture = await startServerWithApp({
      name: 'Lifecycle game',
      redirect_uris: ['https://life.example/cb'],
    });
    ({ server, env, owner, clientId, clientSecret: oldSecret } = fixture);
  }, 60_000);
  afterAll(() => fixture.close());

  const asOwner = () => ['--client-id', clientId, '--owner-email', owner.email, '--password-stdin'];

  it('edits, rotates and deletes an app as its owner, and refuses another account', async () => {
    const updated = await dauth(
      ['client', 'update', ...asOwner(), '--redirect-uri', 'https://life.example/new'],
      env,
      `${owner.password}\n`,
    );
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      success: true,
      client: { client_id: clientId, name: 'Lifecycle game', redirect_uris: ['https://life.example/new'] },
    });
    expect((await server.services.clients.findClient(clientId))?.redirectUris).toEqual([
      'https://life.example/new',
    ]);

    const stranger = await createUser(server.url);
    const refused = await dauth(
      [
        'client',
        'update',
        '--client-id',
        clientId,
        '--owner-email',
        stranger.email,
        '--password-stdin',
        '--name',
        'Taken',
      ],
      env,
      `${stranger.password}\n`,
    );
    expect(refused.code).toBe(1);
    expect((errorOf(refused.stderr) as { success: boolean }).success).toBe(false);
    expect((await server.services.clients.findClient(clientId))?.name).toBe('Lifecycle game');

    const rotated = await dauth(['client', 'rotate-secret', ...asOwner()], env, `${owner.password}\n`);
    expect(rotated.code).toBe(0);
    const { client_secret: newSecret } = JSON.parse(rotated.stdout) as { client_secret: string };
    expect(newSecret).not.toBe(oldSecret);
    expect(await server.services.clients.verifyClientSecret(clientId, newSecret)).toBe(true);

    const deleted = await dauth(['client', 'delete', ...asOwner()], env, `${owner.password}\n`);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toMatchObject({ success: true });
    expect(await server.services.clients.findClient(clientId)).toBeUndefined();
  }, 90_000);
});
