import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DauthClient, GuestRequestError, solveBotChallenge } from '../../src/index.js';
import { startTestServer, type TestServer } from '../../../server/test/helpers/server.js';
import { newUser } from '../../../server/test/content/contentSupport.js';
import { registerApp, type RegisteredApp } from './support.js';

/**
 * A game passes the bot challenge (decisions §9, docs/security.md) with the TypeScript SDK: it fetches
 * `GET /v1/challenge` for its app, solves it by brute force and sends the solution once.
 */
describe('SDK: the bot challenge against a live dauth with BOT_CHALLENGE=guest', () => {
  let server: TestServer;
  let app: RegisteredApp;
  let client: DauthClient;
  const redirectUri = 'https://game.example/dauth/callback';

  beforeAll(async () => {
    server = await startTestServer({ env: { BOT_CHALLENGE: 'guest' } });
    const developer = await newUser(server, 'sdk-challenge-dev');
    app = await registerApp(server.url, developer.token, 'Challenge game', [redirectUri]);
    client = new DauthClient({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri,
      authServerUrl: server.url,
    });
  });
  afterAll(async () => {
    await client?.shutdown();
    await server?.close();
  });

  it('createGuest without a solution is refused; with one it works once', async () => {
    const refused = await client.createGuest().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(GuestRequestError);
    expect(refused).toMatchObject({ responseStatus: 400, errorCode: 'challenge_required' });

    const altcha = await client.solveBotChallenge();
    const payload = JSON.parse(Buffer.from(altcha, 'base64').toString('utf8')) as Record<string, unknown>;
    expect(payload).toMatchObject({ algorithm: 'SHA-256', number: expect.any(Number) });
    const guest = await client.createGuest({ altcha });
    expect(guest.uuid).toMatch(/^\d+$/);
    await expect(client.createGuest({ altcha })).rejects.toMatchObject({ errorCode: 'challenge_required' });
  });

  it('solveBotChallenge finds the number of a known challenge and refuses an unsolvable one', () => {
    const salt = 'abc?expires=1&';
    const challenge = createHash('sha256').update(`${salt}777`).digest('hex');
    const solved = solveBotChallenge({
      algorithm: 'SHA-256',
      challenge,
      salt,
      signature: 'sig',
      maxnumber: 1000,
    });
    expect(JSON.parse(Buffer.from(solved, 'base64').toString('utf8'))).toEqual({
      algorithm: 'SHA-256',
      challenge,
      number: 777,
      salt,
      signature: 'sig',
    });
    expect(() =>
      solveBotChallenge({ algorithm: 'SHA-256', challenge, salt, signature: 'sig', maxnumber: 700 }),
    ).toThrow(/no solution/);
  });
});
