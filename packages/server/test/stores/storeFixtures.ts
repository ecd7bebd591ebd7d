import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { ClientStore, type OAuthClient } from '../../src/stores/clientStore.js';
import { newSlotId } from '../../src/services/slots/slotId.js';
import { type Slot, SlotStore } from '../../src/stores/slotStore.js';
import { UserStore } from '../../src/stores/userStore.js';
import type { WebhookEndpoint } from '../../src/stores/webhookStore.js';
import type { TestDatabase } from '../helpers/databases.js';

/** Opens a fresh, migrated database for one suite and closes it after; `db()` is valid inside tests. */
export function useTestDatabase(database: TestDatabase): () => Db {
  let db: Db | undefined;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const opened = await database.open();
    db = opened.handle.db;
    dispose = opened.dispose;
  });
  afterAll(() => dispose?.());
  return () => {
    if (!db) throw new Error('the test database is not open yet');
    return db;
  };
}

/** A user row, for the tables that reference `users`. */
export async function seedUser(
  db: Db,
  userUuid: number,
  email = `user-${userUuid}@example.com`,
): Promise<void> {
  await new UserStore(db).insert({
    userUuid,
    email,
    nickname: `n${userUuid}`,
    createdAt: 1,
    passwordHash: 'x',
  });
}

/** An app row owned by `ownerUuid`, for the tables that reference `oauth_clients`. */
export async function seedClient(
  db: Db,
  clientId: string,
  ownerUuid: number,
  extra: Partial<OAuthClient> & { postLogoutRedirectUris?: string[] } = {},
) {
  const client: OAuthClient = {
    clientId,
    ownerUuid,
    name: `app ${clientId}`,
    redirectUris: ['https://app.example/cb'],
    dapp: false,
    secretHash: 'h',
    createdAt: 1,
    postLogoutRedirectUris: [],
    requireMfa: false,
    ...extra,
  };
  await new ClientStore(db).insert(client);
  return client;
}

/** An active slot of `ownerUuid` in `clientId`, for the tables that name a slot. */
export async function seedSlot(db: Db, ownerUuid: number, clientId: string, metaIdx = 0): Promise<Slot> {
  const now = Date.now();
  const slot: Slot = {
    id: newSlotId(),
    clientId,
    ownerUuid,
    contentAddress: `0x${randomBytes(20).toString('hex')}`,
    trCnt: 0,
    tokenNickname: 'nick',
    metaIdx,
    imported: false,
    state: 'active',
    stateSince: now,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await new SlotStore(db).insert(slot))) throw new Error('slot fixture not inserted');
  return slot;
}

/** A webhook endpoint of `clientId` subscribed to `events`, its secret a placeholder (stores never open it). */
export const webhookEndpoint = (id: string, clientId: string, events: string[]): WebhookEndpoint => ({
  id,
  clientId,
  url: `https://hooks.example/${id}`,
  events,
  secretSealed: 'sealed',
  previousSecretSealed: undefined,
  previousSecretExpiresAt: undefined,
  failingSince: undefined,
  createdAt: 1,
});
