import { expect } from 'vitest';
import { bearer, post, type TestClient, type TestUser } from '../helpers/http.js';

/**
 * Small helpers the OAuth, status, browser and CLI suites share. Everything goes over real HTTP. The
 * generic ones (users, clients, the callback server) live in `../helpers/http.ts` and are re-exported.
 */

export {
  bearer,
  type CallbackPayload,
  type CallbackRequest,
  type CallbackServer,
  type CallbackServerOptions,
  createClient,
  createUser,
  post,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from '../helpers/http.js';

export function authorizeUrl(baseUrl: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `${baseUrl}/oauth/authorize?${query.toString()}`;
}

/** `GET /oauth/authorize` with the user's login JWT; returns the redirect's parameters. */
export async function authorizeWithBearer(
  baseUrl: string,
  user: TestUser,
  client: TestClient,
  extra: Record<string, string | undefined> = {},
): Promise<{ code: string; state: string | null; location: URL }> {
  const res = await fetch(
    authorizeUrl(baseUrl, {
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      response_type: 'code',
      ...extra,
    }),
    { headers: bearer(user.loginToken), redirect: 'manual' },
  );
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  const code = location.searchParams.get('code');
  expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
  return { code: code!, state: location.searchParams.get('state'), location };
}

export async function exchange(
  baseUrl: string,
  client: TestClient,
  code: string,
  extra: Record<string, string> = {},
): Promise<Response> {
  return post(`${baseUrl}/oauth/token`, {
    grant_type: 'authorization_code',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    code,
    redirect_uri: client.redirectUri,
    ...extra,
  });
}

export interface TokenResult {
  success: boolean;
  access_token: string;
  token_type: string;
  expires_in: number;
  user_id: string;
  refresh_token: string;
  content_address?: string;
}

/** Reads a JSON error body and checks the decided shape (decisions §2, plus RFC 6749 on /oauth). */
export async function expectError(
  res: Response,
  status: number,
  error: string,
): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ success: false, error });
  expect(typeof body.message).toBe('string');
  return body;
}
