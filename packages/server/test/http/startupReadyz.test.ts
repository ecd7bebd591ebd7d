import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StartupProgress } from '../../src/composition/startupProgress.js';
import { startupHandler } from '../../src/http/startupHandler.js';

/**
 * Decisions §8: `/readyz` during the start (before the app exists) tells an anonymous caller only that
 * the service is starting; the steps and their progress need the admin key, as on the app's `/readyz`.
 */
describe('/readyz while the service starts', () => {
  const progress = new StartupProgress();
  const server = http.createServer(startupHandler(progress));
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    progress.begin('database');
    progress.done('database');
    progress.begin('chain', () => 'recovering: 3/10 lost transactions replayed');
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const readyz = async (key?: string) => {
    const res = await fetch(`${url}/readyz`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('shows nobody the steps before the admin key is known', async () => {
    expect(await readyz('anything')).toEqual({
      status: 503,
      body: { success: false, error: 'not_ready', message: 'Starting' },
    });
  });

  it('shows the steps to the admin key only, once the secrets are loaded', async () => {
    progress.useAdminKey('the-admin-key');
    const anonymous = await readyz();
    expect(anonymous).toEqual({
      status: 503,
      body: { success: false, error: 'not_ready', message: 'Starting' },
    });
    expect(await readyz('a-wrong-key')).toEqual(anonymous);
    const admin = await readyz('the-admin-key');
    expect(admin.status).toBe(503);
    expect(admin.body).toEqual({
      success: false,
      error: 'not_ready',
      message: 'Starting: chain (recovering: 3/10 lost transactions replayed)',
      checks: { database: 'ok', chain: 'recovering: 3/10 lost transactions replayed' },
    });
  });
});
