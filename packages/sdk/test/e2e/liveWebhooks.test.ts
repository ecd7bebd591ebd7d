import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inCi } from '../../../server/test/helpers/environment.js';
import { bearer, createClient, createUser, post } from '../../../server/test/helpers/http.js';
import { startTestServer, type TestServer } from '../../../server/test/helpers/server.js';
import { authorizeWithBearer, exchange } from '../../../server/test/oauth/support.js';
import { WebhookReceiver } from '../../../server/test/webhooks/receiver.js';
import { commandAvailable, runChild } from './support.js';

/**
 * The C#, Python and Go webhook verifiers (issue 28) on a delivery a live dauth really sent: an app
 * registers an endpoint on a loopback receiver, a player's authorization code opens a grant
 * (grant.created), the receiver checks the delivery with the standardwebhooks npm package, and each
 * SDK's suite, as a child process, verifies the same headers and raw body (written to a file) and
 * reads the event. (The TypeScript verifier is checked on live deliveries in
 * packages/server/test/webhooks/webhookEvents.test.ts.)
 */

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const monoAvailable = commandAvailable('mcs', ['--version']) && commandAvailable('mono', ['--version']);
const pythonAvailable = commandAvailable('python3', ['--version']);
const goAvailable = commandAvailable('go', ['version']);

describe('the SDKs’ webhook verifiers on a live delivery', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let environment: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({
      env: { WEBHOOK_WORKER_INTERVAL_MS: '25', WEBHOOK_RETRY_BASE_MS: '40' },
    });
    receiver = new WebhookReceiver();
    await receiver.start();
    const developer = await createUser(server.url);
    const app = await createClient(server.url, developer, ['http://127.0.0.1:9/cb']);
    const res = await post(
      `${server.url}/v1/dev-user/clients/${app.clientId}/webhooks`,
      { url: `${receiver.url}/hooks`, events: ['grant.created'] },
      bearer(developer.loginToken),
    );
    const endpoint = (await res.json()) as { secret: string };
    expect(res.status).toBe(201);
    receiver.secrets.set('/hooks', endpoint.secret);

    const player = await createUser(server.url);
    const { code } = await authorizeWithBearer(server.url, player, app);
    expect((await exchange(server.url, app, code)).status).toBe(200);
    await receiver.waitFor(() => receiver.unique('/hooks').length >= 1);
    const [delivery] = receiver.unique('/hooks');
    expect(delivery!.verified).toBe(true);

    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dauth-hook-')), 'delivery.json');
    writeFileSync(
      file,
      JSON.stringify({
        headers: {
          'Webhook-Id': delivery!.id,
          'Webhook-Timestamp': delivery!.timestamp,
          'Webhook-Signature': delivery!.signature,
        },
        body: delivery!.body,
      }),
    );
    environment = {
      DAUTH_E2E_URL: server.url,
      DAUTH_E2E_HOOK_FILE: file,
      DAUTH_E2E_HOOK_SECRET: endpoint.secret,
      DAUTH_E2E_HOOK_CLIENT_ID: app.clientId,
      DAUTH_E2E_HOOK_USER_ID: player.uuid,
    };
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  it.skipIf(!monoAvailable && !inCi)(
    'C#: build.sh live-hooks verifies grant.created as a GrantEvent',
    async () => {
      const result = await runChild(
        'bash',
        [path.join(repoRoot, 'sdk', 'csharp', 'build.sh'), 'live-hooks'],
        {
          cwd: repoRoot,
          env: environment,
          timeoutMs: 240_000,
        },
      );
      expect(result.exitCode, result.output).toBe(0);
      expect(result.output).toMatch(/^PASS live-hooks: /m);
    },
    300_000,
  );

  it.skipIf(!pythonAvailable && !inCi)('Python: tests.test_webhooks_e2e passes', async () => {
    const result = await runChild('python3', ['-m', 'unittest', '-v', 'tests.test_webhooks_e2e'], {
      cwd: path.join(repoRoot, 'sdk', 'python'),
      env: { ...environment, PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 120_000,
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toMatch(/test_a_live_delivery .* ok/);
  });

  it.skipIf(!goAvailable && !inCi)(
    'Go: TestWebhookLive passes',
    async () => {
      const result = await runChild('go', ['test', '-count=1', '-v', '-run', 'TestWebhookLive', './...'], {
        cwd: path.join(repoRoot, 'sdk', 'go'),
        env: { ...environment, GOPROXY: 'off' },
        timeoutMs: 240_000,
      });
      expect(result.exitCode, result.output).toBe(0);
      expect(result.output).toMatch(/^--- PASS: TestWebhookLive/m);
    },
    300_000,
  );
});
