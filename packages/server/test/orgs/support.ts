import { expect } from 'vitest';
import { createUser, type TestUser } from '../helpers/http.js';
import { waitForMail } from '../helpers/outbox.js';
import type { TestServer } from '../helpers/server.js';

export { createUser, type TestUser };

/** Rate limits far above what one suite sends from its one loopback address. */
export const GENEROUS_LIMITS = [
  'login_address=1000/1m',
  'clients_create=1000/1m',
  'webhooks_manage=1000/1m',
  'wallet_policy=1000/1m',
  'app_activity=1000/1m',
  'orgs_manage=1000/1m',
  'org_invite=1000/1m',
  'content_register=1000/1m',
  'content_release=1000/1m',
  'content_test_encryption=1000/1m',
  'content_payload_mode=1000/1m',
  'content_consume_auth=1000/1m',
].join(',');

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** One JSON request with a bearer token. */
export async function api(
  server: TestServer,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export async function createOrg(server: TestServer, owner: TestUser, name = 'Studio'): Promise<string> {
  const created = await api(server, 'POST', '/v1/orgs', owner.loginToken, { name });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

export async function createOrgApp(
  server: TestServer,
  member: TestUser,
  orgId: string | undefined,
  name = 'Game',
): Promise<{ clientId: string; clientSecret: string }> {
  const created = await api(server, 'POST', '/v1/dev-user/clients', member.loginToken, {
    name,
    redirect_uris: ['https://game.example/cb'],
    ...(orgId !== undefined ? { org_id: orgId } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { clientId: created.body.client_id as string, clientSecret: created.body.client_secret as string };
}

/** The invitation token of the newest invitation mail to `email` sent since `since` (its own line). */
export async function invitationToken(server: TestServer, email: string, since: number): Promise<string> {
  const mail = await waitForMail(server.dataDir, email, { since, includes: '/console/invitations?token=' });
  const link = new RegExp(
    `${server.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/console/invitations\\?token=([A-Za-z0-9_-]+)`,
  ).exec(mail.text);
  expect(link, mail.text).not.toBeNull();
  const token = link![1]!;
  // The token also stands alone on its own line.
  expect(mail.text.split(/\r?\n/).map((l) => l.trim())).toContain(token);
  return token;
}

/** `owner` invites `invitee` with `role`; the invitee accepts with the mailed token. */
export async function addMember(
  server: TestServer,
  owner: TestUser,
  orgId: string,
  invitee: TestUser,
  role: string,
): Promise<void> {
  const since = Date.now();
  const invited = await api(server, 'POST', `/v1/orgs/${orgId}/invitations`, owner.loginToken, {
    email: invitee.email,
    role,
  });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const token = await invitationToken(server, invitee.email, since);
  const accepted = await api(server, 'POST', '/v1/orgs/invitations/accept', invitee.loginToken, { token });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  expect(accepted.body).toMatchObject({ success: true, org_id: orgId, role });
}
