import { randomBytes, createHash, createCipheriv } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { ContentTokenGateway } from '../src/chain/contentTokenGateway.js';
import { ContentLedgerStore } from '../src/stores/contentLedgerStore.js';

const timings: Record<string, number[]> = {};
function wrap(proto: any, name: string, label = name) {
  const orig = proto[name];
  proto[name] = async function (...args: any[]) {
    const t = performance.now();
    try { return await orig.apply(this, args); } finally { (timings[label] ??= []).push(performance.now() - t); }
  };
}
wrap(ContentTokenGateway.prototype, 'recordUsage');
wrap(ContentLedgerStore.prototype, 'openBatch');
wrap(ContentLedgerStore.prototype, 'completeBatch');
wrap(ContentLedgerStore.prototype, 'reserve');
wrap(ContentLedgerStore.prototype, 'listQueued');

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-'));
const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
const server = await startServer(config, { logger: pino({ level: 'warn' }) });
const s = server.services;
const opWallet: any = s.chain.operator;
wrap(Object.getPrototypeOf(opWallet), 'execute', 'operator.execute');
const { ChainGateway } = await import('../src/chain/chainGateway.js');
const { RelayerSubmitter } = await import('../src/chain/operations/relayerSubmitter.js');
const { OperationSigner } = await import('../src/chain/operations/operationSigner.js');
wrap(ChainGateway.prototype, 'simulateHandleOps');
wrap(ChainGateway.prototype, 'isDeployed');
wrap(ChainGateway.prototype, 'getNonce');
wrap(RelayerSubmitter.prototype, 'submit');
wrap(OperationSigner.prototype, 'sign');
const post = async (p: string, body: unknown, token?: string) => {
  const r = await fetch(server.url + p, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
  const j = await r.json() as any; if (r.status >= 300) throw new Error(p + ' ' + r.status + JSON.stringify(j)); return j;
};
const reg = async (n: string) => { const email = `${n}${randomBytes(4).toString('hex')}@x.io`; await post('/v1/dev-user/register', { email, password: 'correct horse' }); return post('/v1/dev-user/login_devuser', { email, password: 'correct horse' }); };
const dev = await reg('dev');
const client = await post('/v1/dev-user/clients', { name: 'g', redirect_uris: ['https://g.example/cb'], dapp: true }, dev.token);
const cuid = 'c' + randomBytes(3).toString('hex');
const prov = await post('/v1/development-api/init_permission_provider', { client_id: client.client_id, cuid, release_per: 10, owner_addr: '0x' + '22'.repeat(20) }, dev.token);
const slots: any[] = [];
for (let i = 0; i < 10; i++) {
  const u = await reg('p');
  const salt = randomBytes(32).toString('hex'); const ph = createHash('sha256').update('123456' + salt).digest('hex');
  const pin = await post('/v1/pin/register', { user_uuid: Number(u.uuid), pin_hash: ph, pin_salt: salt }, u.token);
  await post('/v1/admin/faucet', { address: pin.data[0].address, native: '1000000000000000000' }, s.secrets.adminApiKey);
  const { slot } = await s.slots.ensureSlot(Number(u.uuid), client.client_id);
  await post('/v1/development-api/user_buy_content_token', { client_id: client.client_id, user_dbkey: slot.id, amount: '100000000', cuid, pin_hash: ph, pin_salt: salt, key_share_user: pin.data[0].key_share_user }, u.token);
  slots.push(slot);
}
const enc = (p: unknown) => { const c = createCipheriv('aes-256-ctr', Buffer.from(prov.encryption_key, 'hex'), Buffer.from(prov.encryption_iv, 'hex')); return Buffer.concat([c.update(JSON.stringify(p)), c.final()]).toString('hex'); };
const msgs = slots.map((sl) => enc({ client_id: client.client_id, user_dbkey: sl.id, amount: '1', cuid }));
for (const k of Object.keys(timings)) delete timings[k];
const until = performance.now() + Number(process.env.SECS ?? 5) * 1000; let n = 0;
const t0 = performance.now();
await Promise.all(Array.from({ length: Number(process.env.CALLERS ?? 100) }, async (_, i) => { while (performance.now() < until) { const r = await fetch(server.url + '/v1/development-api/increase_used_content_token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ encrypted_message: msgs[i % 10] }) }); await r.text(); if (r.status === 200) n++; } }));
const el = (performance.now() - t0) / 1000;
console.log('rate', (n / el).toFixed(1), 'batches', s.content.batcher.stats);
for (const [k, v] of Object.entries(timings)) { v.sort((a, b) => a - b); console.log(k, 'n', v.length, 'avg', (v.reduce((a, b) => a + b, 0) / v.length).toFixed(2), 'p50', v[Math.floor(v.length / 2)]!.toFixed(2), 'max', v.at(-1)!.toFixed(2)); }
await server.close();
process.exit(0);
