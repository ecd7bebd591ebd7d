import { call, encode } from '../api.js';
import { button, facts, field, h, notice } from '../dom.js';
import { formatTime } from '../format.js';
import { confirmInline, describeError, form, onSubmit, page, submit } from '../view.js';
import { atLeast, listOrgs, orgNotFound } from './orgs.js';
import { t } from '../i18n/translator.js';

/** A player of the app in the directory (docs/players.md, "The players directory"). */
interface Player {
  user_id: string;
  created_at: string;
  last_seen_at: string;
  guest: boolean;
  wallet_address: string | null;
  email?: string;
}
interface PlayerDetail extends Player {
  slots: {
    slot_id: string;
    content_address: string;
    token_nickname: string;
    meta_idx: number;
    state: string;
  }[];
  purchases: { at: string; cuid: string; amount: string }[];
  consumption: { cuid: string; records: number; amount: string }[];
  session_keys: { key_address: string; account_address: string; valid_until: string; state: string }[];
}

const PAGE_SIZE = 50;

/**
 * `#/orgs/{id}/apps/{client_id}/players`: the players who granted the app, a search (user id, wallet
 * address or e-mail), "More" over the cursor, a player's detail on click, and Revoke for developers.
 */
export async function playersPage(
  orgId: string,
  clientId: string,
  query: URLSearchParams = new URLSearchParams(),
): Promise<HTMLElement> {
  // `?limit=` (1–200) sets the page size; the default is 50.
  const asked = Number(query.get('limit'));
  const pageSize = Number.isInteger(asked) && asked >= 1 && asked <= 200 ? asked : PAGE_SIZE;
  const org = (await listOrgs()).find((o) => o.id === orgId);
  if (!org) return orgNotFound();
  const path = `/v1/orgs/${encode(orgId)}/apps/${encode(clientId)}/players`;
  const mayRevoke = atLeast(org.role, 'developer');
  const list = h('ul', { class: 'cards', id: 'player-list' });
  const empty = h('p', { id: 'player-empty', hidden: true }, t('console.players.none'));
  const more = button(t('console.players.more'), { id: 'players-more', class: 'secondary' });
  // The stylesheet shows every button (display: inline-block): hide its wrapper instead.
  const moreBox = h('p', { id: 'players-more-box', hidden: true }, more);
  const messages = h('div', { class: 'messages' });
  let cursor: string | null = null;
  let search = '';

  const load = async (reset: boolean) => {
    const params = new URLSearchParams({ limit: String(pageSize) });
    if (search) params.set('q', search);
    if (!reset && cursor) params.set('cursor', cursor);
    const answer = await call<{ players: Player[]; next_cursor: string | null }>('GET', `${path}?${params}`);
    if (reset) list.replaceChildren();
    list.append(...answer.players.map((player) => playerCard(path, player, mayRevoke)));
    cursor = answer.next_cursor;
    moreBox.hidden = cursor === null;
    empty.hidden = list.childElementCount > 0;
  };
  more.addEventListener('click', () => {
    more.disabled = true;
    load(false)
      .catch((error: unknown) => messages.replaceChildren(notice('error', describeError(error))))
      .finally(() => (more.disabled = false));
  });
  const q = field(
    t('console.players.search'),
    { id: 'players-q', name: 'q', type: 'search', maxlength: '320', autocomplete: 'off' },
    t('console.players.search_hint'),
  );
  const f = form(
    'players-search',
    q.wrapper,
    h('div', { class: 'actions' }, submit(t('console.players.search_submit'), 'players-search-submit')),
  );
  onSubmit(f, async () => {
    search = q.input.value.trim();
    cursor = null;
    await load(true);
  });
  await load(true);
  return page(
    t('console.players.title'),
    h('p', {}, h('a', { href: `#/apps/${encode(clientId)}` }, t('console.players.back'))),
    facts([
      [t('console.players.app'), h('code', {}, clientId)],
      [t('console.players.org'), org.name],
    ]),
    f,
    messages,
    list,
    empty,
    moreBox,
  );
}

function playerCard(path: string, player: Player, mayRevoke: boolean): HTMLElement {
  const playerPath = `${path}/${encode(player.user_id)}`;
  const detail = h('div', { class: 'player-detail', hidden: true });
  const open = button(player.email ?? t('console.players.player', { id: player.user_id }), {
    class: 'link',
    'aria-expanded': 'false',
    'data-player': player.user_id,
  });
  open.addEventListener('click', () => {
    if (!detail.hidden) {
      detail.hidden = true;
      open.setAttribute('aria-expanded', 'false');
      return;
    }
    open.disabled = true;
    call<PlayerDetail>('GET', playerPath)
      .then((full) => detail.replaceChildren(detailOf(full)))
      .catch((error: unknown) => detail.replaceChildren(notice('error', describeError(error))))
      .finally(() => {
        open.disabled = false;
        detail.hidden = false;
        open.setAttribute('aria-expanded', 'true');
      });
  });
  const item = h(
    'li',
    { class: 'card', 'data-player-id': player.user_id },
    h('h2', {}, open),
    facts([
      [t('console.players.user_id'), h('code', {}, player.user_id)],
      [
        t('console.players.wallet'),
        player.wallet_address ? h('code', {}, player.wallet_address) : t('console.players.no_wallet'),
      ],
      [t('console.players.kind'), player.guest ? t('console.players.guest') : t('console.players.account')],
      [t('console.players.last_seen'), formatTime(player.last_seen_at)],
    ]),
    detail,
  );
  if (mayRevoke) {
    const revoke = button(t('console.players.revoke'), { class: 'danger', 'data-revoke': player.user_id });
    const status = h('div', { class: 'messages' });
    const confirm = confirmInline(
      revoke,
      t('console.players.revoke_question', { id: player.user_id }),
      t('console.players.revoke_confirm'),
      async () => {
        const answer = await call<{ revoked_grants: number }>('POST', `${playerPath}/revoke`);
        confirm.hidden = true;
        revoke.disabled = true;
        status.replaceChildren(notice('ok', t('console.players.revoked', { count: answer.revoked_grants })));
      },
    );
    item.append(h('div', { class: 'actions' }, revoke), confirm, status);
  }
  return item;
}

function detailOf(p: PlayerDetail): HTMLElement {
  const listOr = <T>(items: T[], text: (item: T) => string, none: string) =>
    items.length
      ? h(
          'ul',
          {},
          items.map((item) => h('li', {}, text(item))),
        )
      : h('p', {}, none);
  return h(
    'div',
    { 'data-detail': p.user_id },
    facts([
      [t('console.players.first_grant'), formatTime(p.created_at)],
      [t('console.players.last_seen'), formatTime(p.last_seen_at)],
      [t('console.players.email'), p.email ?? t('console.players.email_hidden')],
    ]),
    h('h3', {}, t('console.players.slots')),
    listOr(
      p.slots,
      (s) =>
        t('console.players.slot', {
          name: s.token_nickname,
          index: String(s.meta_idx),
          state: s.state,
          address: s.content_address,
        }),
      t('console.players.no_slots'),
    ),
    h('h3', {}, t('console.players.purchases')),
    listOr(
      p.purchases,
      (x) => t('console.players.purchase', { at: formatTime(x.at), cuid: x.cuid, amount: x.amount }),
      t('console.players.no_purchases'),
    ),
    h('h3', {}, t('console.players.consumption')),
    listOr(
      p.consumption,
      (c) => t('console.players.consumed', { cuid: c.cuid, records: c.records, amount: c.amount }),
      t('console.players.no_consumption'),
    ),
    h('h3', {}, t('console.players.session_keys')),
    listOr(
      p.session_keys,
      (k) =>
        t('console.players.session_key', {
          key: k.key_address,
          account: k.account_address,
          state: k.state,
          until: formatTime(k.valid_until),
        }),
      t('console.players.no_session_keys'),
    ),
  );
}
