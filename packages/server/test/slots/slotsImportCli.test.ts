import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import {
  type CallbackServer,
  createClient,
  createUser,
  dexOwnerOf,
  login,
  rawSlotId,
  registerWallet,
  slotInfoFor,
  startCallbackServer,
  type TestClient,
  type TestUser,
} from '../backend/support.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * `dauth …` as a separate process on the same DATA_DIR, beside the running server (the embedded
 * default: the server holds the chain, and the import goes through its admin API).
 */
async function dauth(
  server: TestServer,
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=development', '--import', 'tsx', path.join(root, 'packages/server/src/cli.ts'), ...args],
      {
        cwd: root,
        env: {
          ...process.env,
          DATA_DIR: server.dataDir,
          PUBLIC_URL: server.url,
          LOG_LEVEL: 'silent',
          ...extraEnv,
        },
        timeout: 120_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('dauth slots import', () => {
  let server: TestServer;
  let dataDir: string;
  let callbacks: CallbackServer;
  let client: TestClient;
  let cb: string;
  let ann: TestUser;
  let annWallet: string;
  let ben: TestUser;
  let benWallet: string;
  const annId = String(10n ** 17n + (randomBytes(8).readBigUInt64BE() % (9n * 10n ** 17n)));
  const benId = `9${String(randomBytes(8).readBigUInt64BE() % 10n ** 18n).padStart(18, '0')}`;

  beforeAll(async () => {
    server = await startTestServer();
    dataDir = server.dataDir;
    callbacks = await startCallbackServer();
    cb = callbacks.url('/cb');
    client = await createClient(server.url, await createUser(server.url, 'Dev'), [cb]);
    ann = await createUser(server.url, 'Ann');
    annWallet = await registerWallet(server.url, ann);
    ben = await createUser(server.url, 'Ben');
    benWallet = await registerWallet(server.url, ben);
  });
  afterAll(async () => {
    await callbacks?.close();
    await server?.close();
  });

  it('imports JSON and CSV beside the running server, records ownership on chain, is idempotent, and the ids travel as strings', async () => {
    const jsonFile = path.join(dataDir, 'slots.json');
    fs.writeFileSync(
      jsonFile,
      JSON.stringify([
        {
          id: annId,
          owner_uuid: Number(ann.uuid),
          client_id: client.clientId,
          token_nickname: 'Ann deck',
          tr_cnt: 2,
        },
      ]),
    );
    const csvFile = path.join(dataDir, 'slots.csv');
    fs.writeFileSync(
      csvFile,
      `id,owner_email,client_id,token_nickname,tr_cnt\n${benId},${ben.email.toUpperCase()},${client.clientId},"Ben, the deck",0\n` +
        `12,${ben.email},no-such-app,x,0\n`,
    );

    const first = await dauth(server, ['slots', 'import', '--file', jsonFile]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      success: true,
      imported: 1,
      results: [{ id: annId, status: 'imported', owner_uuid: Number(ann.uuid), meta_idx: 0 }],
    });
    const csv = await dauth(server, ['slots', 'import', csvFile]);
    expect(csv.code, csv.stderr).toBe(0);
    const csvResult = JSON.parse(csv.stdout) as {
      success: boolean;
      results: { id: string; status: string; error?: string }[];
    };
    expect(csvResult.success).toBe(false);
    expect(csvResult.results).toMatchObject([
      { id: benId, status: 'imported' },
      { id: '12', status: 'failed', error: expect.stringMatching(/client_id/) },
    ]);

    // Again: nothing to do.
    const again = await dauth(server, ['slots', 'import', '--file', jsonFile]);
    expect(JSON.parse(again.stdout)).toMatchObject({ success: true, imported: 0, unchanged: 1 });

    const usage = await dauth(server, ['slots', 'import', '--file', path.join(dataDir, 'slots.txt')]);
    expect(usage.code).toBe(2);

    // No chain_in_use: the running server did the work, and its audit trail says so.
    expect(first.stderr).not.toMatch(/chain_in_use|ChainInUse/);
    const audit = await fetch(`${server.url}/v1/admin/audit?action=admin.slots_import`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    const { entries } = (await audit.json()) as { entries: { details: Record<string, number> }[] };
    expect(entries.map((e) => e.details)).toContainEqual({
      imported: 1,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });

    // Without the admin key the server refuses and nothing is imported.
    const stranger = await dauth(server, ['slots', 'import', jsonFile], {
      ADMIN_API_KEY: 'not-the-admin-key-0123456789',
    });
    expect(stranger.code).toBe(1);
    expect(JSON.parse(stranger.stderr)).toMatchObject({ success: false });

    expect(await dexOwnerOf(server, annId)).toBe(annWallet);
    expect(await dexOwnerOf(server, benId)).toBe(benWallet);
    const annInfo = await slotInfoFor(server, callbacks, await login(server.url, ann), client, cb);
    expect(annInfo.authorize.body.message).toMatchObject({ res: 'existing' });
    expect(rawSlotId(annInfo.token.text)).toEqual({ digits: annId, quoted: true });
    expect(annInfo.token.body.data[0]).toMatchObject({ token_nickname: 'Ann deck', tr_cnt: 2 });
    const benInfo = await slotInfoFor(server, callbacks, await login(server.url, ben), client, cb);
    expect(rawSlotId(benInfo.token.text)).toEqual({ digits: benId, quoted: true });
    expect(benInfo.token.body.data[0]).toMatchObject({ token_nickname: 'Ben, the deck' });
  }, 180_000); // four CLI processes, each starting the embedded chain: slow on a loaded machine

  it('POST /v1/admin/slots/import takes owner_uuid as the string login returns, and refuses one that loses digits', async () => {
    const admin = {
      authorization: `Bearer ${server.services.secrets.adminApiKey}`,
      'content-type': 'application/json',
    };
    const send = (slots: unknown[]) =>
      fetch(`${server.url}/v1/admin/slots/import`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ slots }),
      });
    const carlId = `8${String(randomBytes(8).readBigUInt64BE() % 10n ** 18n).padStart(18, '0')}`;
    // `ann.uuid` is the string login answered with.
    expect(typeof ann.uuid).toBe('string');
    const imported = await send([
      { id: carlId, client_id: client.clientId, owner_uuid: ann.uuid, tr_cnt: 0 },
    ]);
    expect(imported.status).toBe(200);
    expect(await imported.json()).toMatchObject({
      success: true,
      imported: 1,
      results: [{ id: carlId, status: 'imported', owner_uuid: Number(ann.uuid) }],
    });
    // The same record with the number form is the same slot: nothing to do.
    const again = await send([
      { id: carlId, client_id: client.clientId, owner_uuid: Number(ann.uuid), tr_cnt: 0 },
    ]);
    expect(await again.json()).toMatchObject({ success: true, unchanged: 1 });
    // Beyond 2^53 − 1 the number would name another user: 400, nothing imported.
    const lossy = `9${String(randomBytes(8).readBigUInt64BE() % 10n ** 18n).padStart(18, '0')}`;
    const refused = await send([
      { id: lossy, client_id: client.clientId, owner_uuid: ann.uuid },
      { id: lossy, client_id: client.clientId, owner_uuid: '9007199254740993' },
    ]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ success: false, error: 'invalid_request' });
    for (const bad of ['0', '-1', '1.5', 'abc', '']) {
      const res = await send([{ id: lossy, client_id: client.clientId, owner_uuid: bad }]);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    }
    // The refused requests imported nothing: the record is new now.
    const later = await send([{ id: lossy, client_id: client.clientId, owner_uuid: ann.uuid }]);
    expect(await later.json()).toMatchObject({ results: [{ id: lossy, status: 'imported' }] });
  }, 120_000);
});
