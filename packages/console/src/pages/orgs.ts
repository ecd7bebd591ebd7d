import { call, currentSession, encode } from '../api.js';
import { button, facts, field, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { serviceAccountsSection } from './serviceAccounts.js';
import { confirmInline, flash, form, go, onSubmit, page, submit } from '../view.js';
import type { MessageKey } from '../i18n/catalogues/index.js';
import { rich, t } from '../i18n/translator.js';

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
/** A role in words; the API's code stays the `<option>` value. */
const ROLE_NAMES: Record<Role, MessageKey> = {
  owner: 'console.orgs.role.owner',
  admin: 'console.orgs.role.admin',
  developer: 'console.orgs.role.developer',
  viewer: 'console.orgs.role.viewer',
};
export const roleName = (role: string): string =>
  Object.hasOwn(ROLE_NAMES, role) ? t(ROLE_NAMES[role as Role]) : role;
const INVITATION_STATES: Record<string, MessageKey> = {
  pending: 'console.orgs.invitation.pending',
  accepted: 'console.orgs.invitation.accepted',
  revoked: 'console.orgs.invitation.revoked',
  expired: 'console.orgs.invitation.expired',
};
const invitationState = (status: string): string =>
  Object.hasOwn(INVITATION_STATES, status) ? t(INVITATION_STATES[status]!) : status;

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
const orgLabel = (org: Org) =>
  org.personal ? t('console.orgs.personal_name', { name: org.name }) : org.name;

/**
 * The organization switcher: a select of the account's organizations; choosing one shows its apps
 * (`#/apps?org=<id>`), "All organizations" every app.
 */
export function orgSwitcher(orgs: Org[], selected: string | undefined): HTMLElement {
  const select = h(
    'select',
    { id: 'org-switcher', name: 'org' },
    h('option', { value: '' }, t('console.orgs.all')),
    orgs.map((org) =>
      h('option', { value: org.id, selected: org.id === selected ? true : undefined }, orgLabel(org)),
    ),
  ) as HTMLSelectElement;
  select.addEventListener('change', () => go(select.value ? `#/apps?org=${encode(select.value)}` : '#/apps'));
  return h(
    'div',
    { class: 'field' },
    h('label', { for: 'org-switcher' }, t('console.orgs.organization')),
    select,
  );
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
    : h('option', { value: '', selected: fallback === '' ? true : undefined }, t('console.orgs.personal'));
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
        ? h('div', { class: 'field' }, h('label', { for: 'app-org' }, t('console.orgs.organization')), select)
        : null,
    value: () => (choices > 1 ? select.value : fallback),
  };
}

export async function orgsPage(): Promise<HTMLElement> {
  const orgs = await listOrgs();
  const name = field(t('console.orgs.name'), {
    id: 'org-name',
    name: 'name',
    required: true,
    maxlength: '200',
  });
  const f = form(
    'new-org-form',
    name.wrapper,
    h('div', { class: 'actions' }, submit(t('console.orgs.create'), 'new-org-submit')),
  );
  onSubmit(f, async () => {
    const created = await call<{ id: string }>('POST', '/v1/orgs', { name: name.input.value.trim() });
    flash('ok', t('console.orgs.created_flash'));
    go(`#/orgs/${encode(created.id)}`);
  });
  return page(
    t('console.orgs.title'),
    h('p', {}, t('console.orgs.intro')),
    h(
      'ul',
      { class: 'cards', id: 'org-list' },
      orgs.map((org) =>
        h(
          'li',
          { class: 'card' },
          h('h2', {}, h('a', { href: `#/orgs/${encode(org.id)}` }, orgLabel(org))),
          facts([
            [t('console.orgs.your_role'), roleName(org.role)],
            [t('console.orgs.created'), formatTime(org.created_at)],
          ]),
        ),
      ),
    ),
    h('h2', {}, t('console.orgs.new')),
    f,
  );
}

export async function orgPage(orgId: string): Promise<HTMLElement> {
  const org = (await listOrgs()).find((o) => o.id === orgId);
  if (!org) return orgNotFound();
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
    h('p', {}, h('a', { href: '#/orgs' }, t('console.orgs.back'))),
    facts([
      [t('console.orgs.id'), h('code', { id: 'org-id' }, org.id)],
      [t('console.orgs.your_role'), h('span', { id: 'org-role' }, roleName(org.role))],
    ]),
    h(
      'section',
      { 'aria-labelledby': 'org-apps-h' },
      h('h2', { id: 'org-apps-h' }, t('console.orgs.apps')),
      apps.length
        ? h(
            'ul',
            { id: 'org-apps' },
            apps.map((app) =>
              h(
                'li',
                {},
                rich(
                  'console.orgs.app_row',
                  { app: h('a', { href: `#/apps/${encode(app.client_id)}` }, app.name) },
                  {
                    players: (words) =>
                      h(
                        'a',
                        { href: `#/orgs/${encode(org.id)}/apps/${encode(app.client_id)}/players` },
                        words,
                      ),
                  },
                ),
              ),
            ),
          )
        : h('p', { id: 'org-apps' }, t('console.orgs.no_apps')),
      atLeast(org.role, 'developer')
        ? h(
            'p',
            {},
            h(
              'a',
              { href: `#/apps/new?org=${encode(org.id)}`, class: 'button' },
              t('console.orgs.register_app'),
            ),
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
    const who = member.email ?? member.nickname ?? t('console.orgs.account', { id: member.user_id });
    const cells: (HTMLElement | string)[] = [h('td', {}, who), h('td', {}, roleName(member.role))];
    const actions = h('td', {});
    if (member.role !== 'owner' && (manager || member.user_id === me)) {
      if (manager) {
        const select = h(
          'select',
          { 'aria-label': t('console.orgs.role_of', { who }), 'data-member': member.user_id },
          ROLES.filter((r) => r !== 'owner').map((r) =>
            h('option', { value: r, selected: r === member.role ? true : undefined }, roleName(r)),
          ),
        ) as HTMLSelectElement;
        select.addEventListener('change', () => {
          void call('PATCH', `${path}/members/${encode(member.user_id)}`, { role: select.value })
            .then(() => flash('ok', t('console.orgs.role_changed', { who, role: roleName(select.value) })))
            .catch((error: unknown) => flash('error', String((error as Error).message)))
            .finally(() => go(location.hash));
        });
        actions.append(select);
      }
      const remove = button(member.user_id === me ? t('console.orgs.leave') : t('console.orgs.remove'), {
        class: 'secondary',
      });
      actions.append(
        remove,
        confirmInline(
          remove,
          t('console.orgs.remove_question', { who }),
          t('console.orgs.remove'),
          async () => {
            await call('DELETE', `${path}/members/${encode(member.user_id)}`);
            flash('ok', t('console.orgs.removed', { who }));
            go(member.user_id === me ? '#/orgs' : location.hash);
          },
        ),
      );
    }
    cells.push(actions);
    return h('tr', {}, cells);
  });
  return h(
    'section',
    { 'aria-labelledby': 'members-h' },
    h('h2', { id: 'members-h' }, t('console.orgs.members')),
    // The table scrolls inside its own box on a narrow screen, never the page.
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        { id: 'member-list', class: 'members' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, t('console.orgs.member')),
            h('th', { scope: 'col' }, t('console.orgs.role')),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, t('console.orgs.actions'))),
          ),
        ),
        h('tbody', {}, rows),
      ),
    ),
  );
}

function invitationsSection(path: string, invitations: Invitation[]): HTMLElement {
  const email = field(t('console.orgs.invite_email'), {
    id: 'invite-email',
    name: 'email',
    type: 'email',
    required: true,
  });
  const role = h(
    'select',
    { id: 'invite-role', name: 'role' },
    ROLES.filter((r) => r !== 'owner').map((r) =>
      h('option', { value: r, selected: r === 'developer' ? true : undefined }, roleName(r)),
    ),
  ) as HTMLSelectElement;
  const f = form(
    'invite-form',
    email.wrapper,
    h('div', { class: 'field' }, h('label', { for: 'invite-role' }, t('console.orgs.role')), role),
    h('div', { class: 'actions' }, submit(t('console.orgs.invite'), 'invite-submit')),
  );
  onSubmit(f, async () => {
    await call('POST', `${path}/invitations`, { email: email.input.value.trim(), role: role.value });
    flash('ok', t('console.orgs.invited', { email: email.input.value.trim() }));
    go(location.hash);
  });
  const items = invitations.map((invitation) => {
    const item = h(
      'li',
      { 'data-invitation': invitation.id },
      invitation.status === 'pending'
        ? t('console.orgs.invitation_pending', {
            email: invitation.email,
            role: roleName(invitation.role),
            expires: formatTime(invitation.expires_at),
          })
        : t('console.orgs.invitation', {
            email: invitation.email,
            role: roleName(invitation.role),
            status: invitationState(invitation.status),
          }),
    );
    if (invitation.status === 'pending') {
      const revoke = button(t('console.orgs.revoke'), { class: 'secondary' });
      item.append(
        ' ',
        revoke,
        confirmInline(
          revoke,
          t('console.orgs.revoke_question', { email: invitation.email }),
          t('console.orgs.revoke'),
          async () => {
            await call('DELETE', `${path}/invitations/${encode(invitation.id)}`);
            flash('ok', t('console.orgs.revoked'));
            go(location.hash);
          },
        ),
      );
    }
    return item;
  });
  return h(
    'section',
    { 'aria-labelledby': 'invitations-h' },
    h('h2', { id: 'invitations-h' }, t('console.orgs.invitations')),
    items.length
      ? h('ul', { id: 'invitation-list' }, items)
      : h('p', { id: 'invitation-list' }, t('console.orgs.no_invitations')),
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
  if (!token) return page(t('console.orgs.invitation_title'), notice('error', t('console.orgs.no_token')));
  if (!currentSession()) {
    sessionStorage.setItem(PENDING_KEY, token);
    return page(
      t('console.orgs.invitation_title'),
      h('p', {}, t('console.orgs.invitation_signin')),
      h(
        'p',
        {},
        h('a', { href: '#/signin', class: 'button', id: 'invitation-signin' }, t('console.nav.signin')),
      ),
    );
  }
  const f = form(
    'accept-invitation-form',
    h('p', {}, t('console.orgs.invitation_intro')),
    h('div', { class: 'actions' }, submit(t('console.orgs.accept'), 'accept-invitation')),
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
    flash('ok', t('console.orgs.joined', { name: accepted.name, role: roleName(accepted.role) }));
    go(`#/orgs/${encode(accepted.org_id)}`);
  });
  return page(t('console.orgs.invitation_title'), f);
}

/** An organization the account does not belong to (or that does not exist). */
export function orgNotFound(): HTMLElement {
  return page(t('console.orgs.not_found'), h('p', {}, h('a', { href: '#/orgs' }, t('console.orgs.yours'))));
}
