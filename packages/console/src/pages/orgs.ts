import { call, currentSession, encode } from '../api.js';
import { button, facts, field, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { serviceAccountsSection } from './serviceAccounts.js';
import { confirmInline, flash, form, go, onSubmit, page, submit } from '../view.js';

/** An organization the signed-in account belongs to (docs/orgs.md). */
export interface Org {
  id: string;
  name: string;
  personal: boolean;
  role: Role;
  created_at: string;
}
type Role = 'owner' | 'admin' | 'developer' | 'viewer';
const ROLES: Role[] = ['owner', 'admin', 'developer', 'viewer'];
const RANK: Record<Role, number> = { viewer: 1, developer: 2, admin: 3, owner: 4 };
export const atLeast = (role: Role, minimum: Role) => RANK[role] >= RANK[minimum];

interface Member {
  user_id: string;
  role: Role;
  email?: string;
  nickname?: string;
  joined_at: string;
}
interface Invitation {
  id: string;
  email: string;
  role: Role;
  status: string;
  expires_at: string;
}

export const listOrgs = async (): Promise<Org[]> => (await call<{ orgs: Org[] }>('GET', '/v1/orgs')).orgs;
const orgLabel = (org: Org) => (org.personal ? `${org.name} (personal)` : org.name);

/**
 * The organization switcher: a select of the account's organizations; choosing one shows its apps
 * (`#/apps?org=<id>`), "All organizations" every app.
 */
export function orgSwitcher(orgs: Org[], selected: string | undefined): HTMLElement {
  const select = h(
    'select',
    { id: 'org-switcher', name: 'org' },
    h('option', { value: '' }, 'All organizations'),
    orgs.map((org) =>
      h('option', { value: org.id, selected: org.id === selected ? true : undefined }, orgLabel(org)),
    ),
  ) as HTMLSelectElement;
  select.addEventListener('change', () => go(select.value ? `#/apps?org=${encode(select.value)}` : '#/apps'));
  return h('div', { class: 'field' }, h('label', { for: 'org-switcher' }, 'Organization'), select);
}

/**
 * The organization a new app goes into: a select of those where the account may create apps (developer
 * or higher), shown only when there is a choice; '' stands for the personal organization before it exists.
 */
export function orgChoice(
  orgs: Org[],
  selected: string | undefined,
): { wrapper: HTMLElement | null; value(): string } {
  const allowed = orgs.filter((org) => atLeast(org.role, 'developer'));
  const fallback = selected ?? allowed.find((org) => org.personal)?.id ?? '';
  // Without a personal organization yet, '' stands for it: the server creates it with the first app.
  const personal = allowed.some((org) => org.personal)
    ? null
    : h('option', { value: '', selected: fallback === '' ? true : undefined }, 'Personal');
  const select = h(
    'select',
    { id: 'app-org', name: 'org_id' },
    personal,
    allowed.map((org) =>
      h('option', { value: org.id, selected: org.id === fallback ? true : undefined }, orgLabel(org)),
    ),
  ) as HTMLSelectElement;
  const choices = allowed.length + (personal ? 1 : 0);
  return {
    wrapper:
      choices > 1
        ? h('div', { class: 'field' }, h('label', { for: 'app-org' }, 'Organization'), select)
        : null,
    value: () => (choices > 1 ? select.value : fallback),
  };
}

export async function orgsPage(): Promise<HTMLElement> {
  const orgs = await listOrgs();
  const name = field('Organization name', { id: 'org-name', name: 'name', required: true, maxlength: '200' });
  const f = form(
    'new-org-form',
    name.wrapper,
    h('div', { class: 'actions' }, submit('Create organization', 'new-org-submit')),
  );
  onSubmit(f, async () => {
    const created = await call<{ id: string }>('POST', '/v1/orgs', { name: name.input.value.trim() });
    flash('ok', 'Organization created: invite your team.');
    go(`#/orgs/${encode(created.id)}`);
  });
  return page(
    'Organizations',
    h(
      'p',
      {},
      'An organization holds apps; its members manage them by role (owner, admin, developer, viewer).',
    ),
    h(
      'ul',
      { class: 'cards', id: 'org-list' },
      orgs.map((org) =>
        h(
          'li',
          { class: 'card' },
          h('h2', {}, h('a', { href: `#/orgs/${encode(org.id)}` }, orgLabel(org))),
          facts([
            ['Your role', org.role],
            ['Created', formatTime(org.created_at)],
          ]),
        ),
      ),
    ),
    h('h2', {}, 'New organization'),
    f,
  );
}

export async function orgPage(orgId: string): Promise<HTMLElement> {
  const org = (await listOrgs()).find((o) => o.id === orgId);
  if (!org)
    return page('Organization not found', h('p', {}, h('a', { href: '#/orgs' }, 'Your organizations')));
  const path = `/v1/orgs/${encode(org.id)}`;
  const [{ members }, { apps }] = await Promise.all([
    call<{ members: Member[] }>('GET', `${path}/members`),
    call<{ apps: { client_id: string; name: string }[] }>('GET', `${path}/apps`),
  ]);
  const manager = atLeast(org.role, 'admin');
  const invitations = manager
    ? (await call<{ invitations: Invitation[] }>('GET', `${path}/invitations`)).invitations
    : [];
  return page(
    orgLabel(org),
    h('p', {}, h('a', { href: '#/orgs' }, '← All organizations')),
    facts([
      ['Organization id', h('code', { id: 'org-id' }, org.id)],
      ['Your role', h('span', { id: 'org-role' }, org.role)],
    ]),
    h(
      'section',
      { 'aria-labelledby': 'org-apps-h' },
      h('h2', { id: 'org-apps-h' }, 'Apps'),
      apps.length
        ? h(
            'ul',
            { id: 'org-apps' },
            apps.map((app) =>
              h(
                'li',
                {},
                h('a', { href: `#/apps/${encode(app.client_id)}` }, app.name),
                ' · ',
                h('a', { href: `#/orgs/${encode(org.id)}/apps/${encode(app.client_id)}/players` }, 'Players'),
              ),
            ),
          )
        : h('p', { id: 'org-apps' }, 'No apps yet.'),
      atLeast(org.role, 'developer')
        ? h(
            'p',
            {},
            h('a', { href: `#/apps/new?org=${encode(org.id)}`, class: 'button' }, 'Register an app here'),
          )
        : null,
    ),
    membersSection(path, members, manager),
    manager ? invitationsSection(path, invitations) : null,
    manager ? await serviceAccountsSection(path) : null,
  );
}

function membersSection(path: string, members: Member[], manager: boolean): HTMLElement {
  const me = currentSession()?.uuid;
  const rows = members.map((member) => {
    const who = member.email ?? member.nickname ?? `account ${member.user_id}`;
    const cells: (HTMLElement | string)[] = [h('td', {}, who), h('td', {}, member.role)];
    const actions = h('td', {});
    if (member.role !== 'owner' && (manager || member.user_id === me)) {
      if (manager) {
        const select = h(
          'select',
          { 'aria-label': `Role of ${who}`, 'data-member': member.user_id },
          ROLES.filter((r) => r !== 'owner').map((r) =>
            h('option', { value: r, selected: r === member.role ? true : undefined }, r),
          ),
        ) as HTMLSelectElement;
        select.addEventListener('change', () => {
          void call('PATCH', `${path}/members/${encode(member.user_id)}`, { role: select.value })
            .then(() => flash('ok', `${who} is now ${select.value}.`))
            .catch((error: unknown) => flash('error', String((error as Error).message)))
            .finally(() => go(location.hash));
        });
        actions.append(select);
      }
      const remove = button(member.user_id === me ? 'Leave' : 'Remove', { class: 'secondary' });
      actions.append(
        remove,
        confirmInline(remove, `Remove ${who} from the organization?`, 'Remove', async () => {
          await call('DELETE', `${path}/members/${encode(member.user_id)}`);
          flash('ok', `${who} was removed.`);
          go(member.user_id === me ? '#/orgs' : location.hash);
        }),
      );
    }
    cells.push(actions);
    return h('tr', {}, cells);
  });
  return h(
    'section',
    { 'aria-labelledby': 'members-h' },
    h('h2', { id: 'members-h' }, 'Members'),
    h(
      'table',
      { id: 'member-list' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Member'), h('th', {}, 'Role'), h('th', {}, ''))),
      h('tbody', {}, rows),
    ),
  );
}

function invitationsSection(path: string, invitations: Invitation[]): HTMLElement {
  const email = field('E-mail', { id: 'invite-email', name: 'email', type: 'email', required: true });
  const role = h(
    'select',
    { id: 'invite-role', name: 'role' },
    ROLES.filter((r) => r !== 'owner').map((r) =>
      h('option', { value: r, selected: r === 'developer' ? true : undefined }, r),
    ),
  ) as HTMLSelectElement;
  const f = form(
    'invite-form',
    email.wrapper,
    h('div', { class: 'field' }, h('label', { for: 'invite-role' }, 'Role'), role),
    h('div', { class: 'actions' }, submit('Send invitation', 'invite-submit')),
  );
  onSubmit(f, async () => {
    await call('POST', `${path}/invitations`, { email: email.input.value.trim(), role: role.value });
    flash('ok', `Invitation sent to ${email.input.value.trim()}.`);
    go(location.hash);
  });
  const items = invitations.map((invitation) => {
    const item = h(
      'li',
      { 'data-invitation': invitation.id },
      `${invitation.email} — ${invitation.role} — ${invitation.status}`,
      invitation.status === 'pending' ? ` (expires ${formatTime(invitation.expires_at)})` : '',
    );
    if (invitation.status === 'pending') {
      const revoke = button('Revoke', { class: 'secondary' });
      item.append(
        revoke,
        confirmInline(revoke, `Revoke the invitation of ${invitation.email}?`, 'Revoke', async () => {
          await call('DELETE', `${path}/invitations/${encode(invitation.id)}`);
          flash('ok', 'Invitation revoked.');
          go(location.hash);
        }),
      );
    }
    return item;
  });
  return h(
    'section',
    { 'aria-labelledby': 'invitations-h' },
    h('h2', { id: 'invitations-h' }, 'Invitations'),
    items.length
      ? h('ul', { id: 'invitation-list' }, items)
      : h('p', { id: 'invitation-list' }, 'No invitations.'),
    f,
  );
}

const PENDING_KEY = 'dauth.pendingInvitation';

/** A pending invitation token the mail's link brought before the person signed in. */
export function pendingInvitation(): string | null {
  return sessionStorage.getItem(PENDING_KEY);
}

/** `/console/invitations?token=…` (the invitation mail's link): accept it, signed in with the invited address. */
export function invitationPage(query: URLSearchParams): HTMLElement {
  const token = query.get('token') ?? pendingInvitation();
  if (!token) return page('Invitation', notice('error', 'This link has no invitation token.'));
  if (!currentSession()) {
    sessionStorage.setItem(PENDING_KEY, token);
    return page(
      'Invitation',
      h('p', {}, 'Sign in (or sign up) with the e-mail address the invitation was sent to, then accept it.'),
      h('p', {}, h('a', { href: '#/signin', class: 'button', id: 'invitation-signin' }, 'Sign in')),
    );
  }
  const f = form(
    'accept-invitation-form',
    h('p', {}, 'You were invited to join an organization on dauth.'),
    h('div', { class: 'actions' }, submit('Accept invitation', 'accept-invitation')),
  );
  onSubmit(f, async () => {
    const accepted = await call<{ org_id: string; name: string; role: string }>(
      'POST',
      '/v1/orgs/invitations/accept',
      {
        token,
      },
    );
    sessionStorage.removeItem(PENDING_KEY);
    flash('ok', `You joined ${accepted.name} as ${accepted.role}.`);
    go(`#/orgs/${encode(accepted.org_id)}`);
  });
  return page('Invitation', f);
}
