/**
 * The management scopes of an organization's service accounts (decisions §9 "Machines"), each the
 * counterpart of a member's role on the org's management routes: `apps:read` and `players:read` read as
 * a `viewer` would, `apps:write`, `webhooks:write` and `players:write` change as a `developer` would.
 */
export const MANAGEMENT_SCOPES = [
  'apps:read',
  'apps:write',
  'webhooks:write',
  'players:read',
  'players:write',
] as const;

export type ManagementScope = (typeof MANAGEMENT_SCOPES)[number];

export const isManagementScope = (s: string): s is ManagementScope =>
  (MANAGEMENT_SCOPES as readonly string[]).includes(s);
