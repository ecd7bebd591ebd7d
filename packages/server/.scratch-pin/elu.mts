import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { startTestServer } from '../test/helpers/server.js';
import { newUser, registerPin } from '../test/pin/pinHelpers.js';

const server = await startTestServer();
const users = [];
for (let i = 0; i < 16; i++) {
  const u = await newUser(server, 'elu');
  const r = await registerPin(server, u, '123456');
  users.push({ u, body: JSON.stringify({ user_uuid: u.uuid, ...r.pin, key_share_user: r.key_share_user }) });
}
const deriver = (server.services.custody as any).deps.sharePins;
const orig = deriver.derive.bind(deriver);
let busy = 0; let calls = 0; let queueWait = 0;
const { deriveSharePin } = await import('../src/crypto/keyShares.js');
deriver.derive = async (h: string) => { const t = performance.now(); const r = await orig(h); const d = performance.now() - t; calls++; busy += d; return r; };
const run = async (label: string, path: string, n: number, conc: number, mk: (i: number) => { payload?: string; headers: Record<string, string>; method: 'POST' | 'GET' }) => {
  const c0 = process.cpuUsage();
  const e0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  let i = 0;
  await Promise.all(Array.from({ length: conc }, async () => {
    while (i < n) {
      const k = i++;
      const { payload, headers, method } = mk(k);
      const res = await server.app.inject({ method, url: path, payload, headers });
      if (res.statusCode !== 200) throw new Error(res.body);
    }
  }));
  const ms = performance.now() - t0;
  const elu = performance.eventLoopUtilization(e0);
  console.log('derive calls', calls, 'mean derive wall incl. queue ms', (busy / Math.max(calls,1)).toFixed(1)); calls = 0; busy = 0;
  const c = process.cpuUsage(c0);
  console.log(label, 'process cpu ms/req', ((c.user + c.system) / 1000 / n).toFixed(2));
  console.log(label, 'rate', (n / ms * 1000).toFixed(1), 'ELU', elu.utilization.toFixed(2), 'main ms/req', (elu.active / n).toFixed(2));
};
await run('warm', '/v1/pin/verify', 64, 32, (k) => { const x = users[k % users.length]!; return { method: 'POST', payload: x.body, headers: { 'content-type': 'application/json', authorization: `Bearer ${x.u.token}` } }; });
await run('verify', '/v1/pin/verify', 300, 32, (k) => { const x = users[k % users.length]!; return { method: 'POST', payload: x.body, headers: { 'content-type': 'application/json', authorization: `Bearer ${x.u.token}` } }; });
const access = await server.services.tokens.issueAccessToken({ userId: String(users[0]!.u.uuid), clientId: 'c', grantId: 'g' });
await run('validate', '/v1/oauth/validate', 3000, 4, () => ({ method: 'GET', headers: { authorization: `Bearer ${access.token}` } }));
await server.close();
