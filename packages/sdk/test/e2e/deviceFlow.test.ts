import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DauthClient, DeviceFlowError } from '../../src/index.js';
import { commandAvailable } from './support.js';
import { startTestServer, type TestServer } from '../../../server/test/helpers/server.js';
import {
  bearer,
  createClient,
  createUser,
  post,
  type TestClient,
  type TestUser,
} from '../../../server/test/helpers/http.js';
import { boundLoginToken } from '../../../server/test/oidc/support.js';

/**
 * The TypeScript SDK's device flow (RFC 8628) against a live dauth: a launcher backend starts it,
 * the player approves or denies from a companion app, the SDK polls honouring `interval` and
 * `slow_down`.
 */
describe('DauthClient device authorization against a live dauth', () => {
  let server: TestServer;
  let player: TestUser;
  let app: TestClient;
  let dauth: DauthClient;

  beforeAll(async () => {
    server = await startTestServer({ env: { DEVICE_CODE_INTERVAL_SECONDS: '1' } });
    player = await createUser(server.url);
    app = await createClient(server.url, player, ['http://127.0.0.1:9/cb'], { name: 'Launcher' });
    dauth = new DauthClient({
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      redirectUri: app.redirectUri,
      authServerUrl: server.url,
    });
  });
  afterAll(() => server?.close());

  // The companion app is signed in to the launcher's app: its login JWT is bound to it (docs/players.md).
  const decide = async (decision: 'approve' | 'deny', userCode: string) =>
    post(
      `${server.url}/v1/device/${decision}`,
      { user_code: userCode },
      bearer(await boundLoginToken(server.url, player, app.clientId)),
    );

  it('starts, polls while pending, and gets the tokens (with an id_token for openid) once approved', async () => {
    const start = await dauth.startDeviceAuthorization({ scope: 'openid' });
    expect(start.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(start.verificationUri).toBe(`${server.url}/device`);
    expect(start.interval).toBe(1);
    const waits: number[] = [];
    let polls = 0;
    const tokens = dauth.pollDeviceToken(start, {
      sleep: async (ms) => {
        waits.push(ms);
        if (++polls === 3) expect((await decide('approve', start.userCode)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    const result = await tokens;
    expect(result).toMatchObject({ tokenType: 'Bearer', expiresIn: 3600, userId: player.uuid });
    expect(result.idToken?.split('.')).toHaveLength(3);
    expect(result.refreshToken.length).toBeGreaterThan(20);
    expect(waits).toEqual([1000, 1000, 1000]);
  });

  it('honours slow_down: after a too-early poll it waits 5 s longer, every time', async () => {
    const start = await dauth.startDeviceAuthorization();
    const waits: number[] = [];
    // Waiting almost nothing makes every poll after the first too early: each answer is slow_down.
    const polling = dauth.pollDeviceToken(start, {
      sleep: async (ms) => {
        waits.push(ms);
        if (waits.length === 4) expect((await decide('deny', start.userCode)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    });
    const denied = await polling.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(DeviceFlowError);
    expect(denied).toMatchObject({ errorCode: 'access_denied', responseStatus: 400 });
    expect(waits).toEqual([1000, 1000, 6000, 11000]);
  });

  it('a wrong client secret is a DeviceFlowError invalid_client', async () => {
    const wrong = new DauthClient({
      clientId: app.clientId,
      clientSecret: 'not-the-secret',
      redirectUri: app.redirectUri,
      authServerUrl: server.url,
    });
    await expect(wrong.startDeviceAuthorization()).rejects.toMatchObject({
      errorCode: 'invalid_client',
      responseStatus: 401,
    });
  });
});

const sdkRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../sdk');
const GO_MODULE = 'github.com/dauth/dauth/sdk/go';

/** A launcher backend in Python or Go: prints `{"user_code"}`, polls, prints what it got. */
const PYTHON_LAUNCHER = `
import json, os, sys
from dauth_sdk import DauthClient, DeviceFlowError
c = DauthClient(os.environ["CID"], os.environ["SECRET"], "http://127.0.0.1:9/cb", auth_server_url=os.environ["URL"])
s = c.start_device_authorization(scope="openid")
print(json.dumps({"user_code": s.user_code}), flush=True)
try:
    t = c.poll_device_token(s)
    print(json.dumps({"user_id": t.user_id, "id_token": t.id_token is not None, "refresh": bool(t.refresh_token)}), flush=True)
except DeviceFlowError as e:
    print(json.dumps({"error": e.error_code}), flush=True)
`;
const GO_LAUNCHER = `package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	dauth "${GO_MODULE}"
)

func main() {
	c, err := dauth.New(dauth.Config{ClientID: os.Getenv("CID"), ClientSecret: os.Getenv("SECRET"), RedirectURI: "http://127.0.0.1:9/cb", AuthServerURL: os.Getenv("URL")})
	if err != nil {
		panic(err)
	}
	s, err := c.StartDeviceAuthorization(context.Background(), "openid")
	if err != nil {
		panic(err)
	}
	out := json.NewEncoder(os.Stdout)
	_ = out.Encode(map[string]any{"user_code": s.UserCode})
	t, err := c.PollDeviceToken(context.Background(), s)
	var flow *dauth.DeviceFlowError
	if errors.As(err, &flow) {
		_ = out.Encode(map[string]any{"error": flow.ErrorCode})
		return
	}
	if err != nil {
		panic(err)
	}
	_ = out.Encode(map[string]any{"user_id": t.UserID, "id_token": t.IDToken != "", "refresh": t.RefreshToken != ""})
}
`;

/**
 * Runs a launcher, approves or denies the code it prints from the player's companion app, and
 * returns its last line. The dauth server lives in this process, so the child runs asynchronously.
 */
function runLauncher(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
  onUserCode: (userCode: string) => Promise<void>,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    let decided = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const first = stdout.split('\n')[0];
      if (!decided && stdout.includes('\n') && first) {
        decided = true;
        const { user_code } = JSON.parse(first) as { user_code: string };
        onUserCode(user_code).catch(reject);
      }
    });
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      const lines = stdout.trim().split('\n');
      if (code !== 0 || lines.length < 2)
        return reject(new Error(`launcher exited ${code}: ${stdout}${stderr}`));
      resolve(JSON.parse(lines.at(-1)!) as Record<string, unknown>);
    });
  });
}

describe("the Python and Go SDKs' device flow against a live dauth", () => {
  let server: TestServer;
  let player: TestUser;
  let app: TestClient;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startTestServer({ env: { DEVICE_CODE_INTERVAL_SECONDS: '1' } });
    player = await createUser(server.url);
    app = await createClient(server.url, player, ['http://127.0.0.1:9/cb'], { name: 'Launcher' });
    env = { URL: server.url, CID: app.clientId, SECRET: app.clientSecret };
  });
  afterAll(() => server?.close());

  const decideAfterAPoll = (decision: 'approve' | 'deny') => async (userCode: string) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const res = await post(
      `${server.url}/v1/device/${decision}`,
      { user_code: userCode },
      bearer(await boundLoginToken(server.url, player, app.clientId)),
    );
    expect(res.status).toBe(200);
  };

  it.skipIf(!commandAvailable('python3', ['--version']))(
    'Python: approved gets the tokens, denied gets access_denied',
    async () => {
      const options = { cwd: path.join(sdkRoot, 'python'), env };
      expect(
        await runLauncher('python3', ['-c', PYTHON_LAUNCHER], options, decideAfterAPoll('approve')),
      ).toEqual({
        user_id: player.uuid,
        id_token: true,
        refresh: true,
      });
      expect(
        await runLauncher('python3', ['-c', PYTHON_LAUNCHER], options, decideAfterAPoll('deny')),
      ).toEqual({
        error: 'access_denied',
      });
    },
  );

  it.skipIf(!commandAvailable('go', ['version']))(
    'Go: approved gets the tokens, denied gets access_denied',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-go-launcher-'));
      try {
        fs.writeFileSync(
          path.join(dir, 'go.mod'),
          `module example.com/launcher\n\ngo 1.19\n\nrequire ${GO_MODULE} v0.0.0\n\nreplace ${GO_MODULE} => ${path.join(sdkRoot, 'go')}\n`,
        );
        fs.writeFileSync(path.join(dir, 'main.go'), GO_LAUNCHER);
        const goEnv = { ...env, GOPROXY: 'off', GOFLAGS: '-mod=mod', GOCACHE: path.join(dir, '.cache') };
        const options = { cwd: dir, env: goEnv };
        expect(await runLauncher('go', ['run', '.'], options, decideAfterAPoll('approve'))).toEqual({
          user_id: player.uuid,
          id_token: true,
          refresh: true,
        });
        expect(await runLauncher('go', ['run', '.'], options, decideAfterAPoll('deny'))).toEqual({
          error: 'access_denied',
        });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
