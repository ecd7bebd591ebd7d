import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createOidcClient, type OidcTestClient } from './support.js';

/**
 * Decisions §8: `end_session` acts on an `id_token_hint` only while the hint is at most 24 hours old.
 * An older one (signed by this service, so it still names the app) signs nobody out at once: the user
 * is asked to confirm, as without a hint.
 */
describe('end_session and the age of id_token_hint', () => {
  let server: TestServer;
  let user: TestUser;
  let app: OidcTestClient;
  const loggedOut = 'http://127.0.0.1:9/logged-out';
  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server.url);
    app = await createOidcClient(server.url, user, ['http://127.0.0.1:9/cb'], {
      postLogoutRedirectUris: [loggedOut],
    });
  }, 120_000);
  afterAll(() => server?.close());

  /** An ID token of this service for the user and app, issued `ageHours` ago (expired one hour later). */
  const hintIssued = (ageHours: number) => {
    const iat = Math.floor(Date.now() / 1000) - ageHours * 3600;
    return server.services.tokens.signJwt({
      iss: server.config.publicUrl,
      sub: user.uuid,
      aud: app.clientId,
      iat,
      exp: iat + 3600,
      auth_time: iat,
    });
  };

  const endSession = (hint: string) =>
    fetch(
      `${server.url}/oauth/end_session?${new URLSearchParams({
        id_token_hint: hint,
        post_logout_redirect_uri: loggedOut,
        state: 'bye',
      }).toString()}`,
      { redirect: 'manual' },
    );
  const status = async () => (await server.services.loginStatus.getStatus(user.uuid, app.clientId)).status;

  it('acts on a 23-hour-old hint (expired, still within 24 hours): logged out and redirected', async () => {
    await server.services.loginStatus.setStatus(user.uuid, app.clientId, 'logged_in');
    const res = await endSession(hintIssued(23));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${loggedOut}?state=bye`);
    expect(await status()).toBe('logged_out');
  });

  it('does not act on a 25-hour-old hint: the confirmation page, nothing changed', async () => {
    await server.services.loginStatus.setStatus(user.uuid, app.clientId, 'logged_in');
    const res = await endSession(hintIssued(25));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    const page = await res.text();
    // The form carries the app on (the hint named it), so confirming still returns to the app.
    expect(page).toContain(`name="client_id" value="${app.clientId}"`);
    expect(page).toContain(`name="post_logout_redirect_uri"`);
    expect(await status()).toBe('logged_in');
  });
});
