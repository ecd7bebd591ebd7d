/**
 * A complete game backend on Express: the game client posts the user's dauth login JWT to /login,
 * the backend turns it into slot information and keeps the tokens server-side.
 *
 *   npm run build   # @dauth/sdk resolves to packages/sdk/dist
 *   DAUTH_CLIENT_ID=… DAUTH_CLIENT_SECRET=… DAUTH_REDIRECT_URI=http://127.0.0.1:3000/dauth/callback \
 *   node --import tsx packages/sdk/examples/express-backend.ts   # listens on the redirect URI's port (or PORT)
 */
import express from 'express';
import { DauthClient, toHttpStatus } from '@dauth/sdk';
import type { SlotInfo } from '@dauth/sdk';
import { expressCallbackHandler } from '@dauth/sdk/express';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

// Must equal the registered redirect_uri exactly, and reach this process: so the process listens on its port.
const redirectUri = required('DAUTH_REDIRECT_URI');

const dauth = new DauthClient({
  clientId: required('DAUTH_CLIENT_ID'),
  clientSecret: required('DAUTH_CLIENT_SECRET'),
  redirectUri,
  authServerUrl: process.env.DAUTH_URL ?? 'http://127.0.0.1:8080',
});

// Tokens stay on the server; the game client only ever sees the slot id. Use a real store in production.
const sessions = new Map<string, { slot: SlotInfo; userId: string }>();

/** The user id is the `sub` of the login JWT; the service checks it against the access token. */
function userIdOf(jwt: string): string {
  const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
    sub?: string;
  };
  return String(payload.sub);
}

const app = express();
app.use(express.json());

// The service POSTs the authorization callback here. POST, not GET: a GET-only route times out every login.
app.post(new URL(dauth.redirectUri).pathname, expressCallbackHandler(dauth));

app.post('/login', async (request, response) => {
  const jwt = (request.body as { jwt?: string } | undefined)?.jwt;
  try {
    const slot = await dauth.getSlotInfo({ jwt: jwt ?? '' });
    const userId = userIdOf(jwt ?? '');
    sessions.set(slot.id.value, { slot, userId });
    // Never blocks the login: a failed report is logged and returned, not thrown.
    await dauth.reportLogin({ accessToken: slot.access_token, userId });
    // The id as a decimal string: exact in every client language.
    response.json({ slot_id: slot.id.value, nickname: slot.token_nickname ?? null });
  } catch (error) {
    response.status(toHttpStatus(error)).json({ error: (error as Error).message });
  }
});

app.post('/logout', async (request, response) => {
  const session = sessions.get(String((request.body as { slot_id?: unknown } | undefined)?.slot_id));
  if (!session) {
    response.status(404).json({ error: 'unknown slot' });
    return;
  }
  sessions.delete(session.slot.id.value);
  await dauth.reportLogout({ accessToken: session.slot.access_token, userId: session.userId });
  await dauth
    .logout(session.slot.access_token)
    .catch((error: unknown) => console.warn('logout failed', error));
  response.json({ logged_out: true });
});

const redirect = new URL(redirectUri);
// PORT wins when set; otherwise the redirect URI's port (its scheme's default when it names none).
const port = Number(process.env.PORT ?? (redirect.port || (redirect.protocol === 'https:' ? 443 : 80)));
const server = app.listen(port, '127.0.0.1', () => console.log(`game backend on http://127.0.0.1:${port}`));

process.once('SIGTERM', () => {
  // Pending logins fail with `shutdown` (503) instead of hanging until their timeout.
  void dauth.shutdown().then(() => server.close());
});
