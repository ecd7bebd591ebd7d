/**
 * Micro-benchmark: one ES256 JWT signed by jose (`SignJWT`, WebCrypto `CryptoKey`: an async job on
 * libuv's thread pool) against node:crypto's synchronous `sign` on a `KeyObject`, with the key in an
 * options object asking for `ieee-p1363` and (what `TokenService` uses since issue 43) with the KeyObject
 * alone, its DER signature converted to r || s. Alternating rounds, so load from elsewhere hits both; medians of wall time and process CPU
 * time per token. Not a test: it asserts nothing.
 *
 *   node --import tsx bench/tokenSigning.bench.ts [--tokens 2000] [--rounds 7]
 */
import { createPrivateKey, type JsonWebKey, randomUUID, sign } from 'node:crypto';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { derToP1363 } from '../packages/server/src/crypto/ecdsaSignature.js';
import { machineInfo, writeBenchSummary } from './summary.js';

const { values } = parseArgs({
  options: { tokens: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '7' } },
});
const tokens = Number(values.tokens);
const rounds = Number(values.rounds);

const { privateKey } = await generateKeyPair('ES256', { extractable: true });
const jwk = await exportJWK(privateKey);
const keyObject = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
const kid = randomUUID();
const claims = { token_use: 'access', client_id: 'client-1', gid: randomUUID(), scope: 'openid' };
const b64 = (text: string) => Buffer.from(text).toString('base64url');

async function viaJose(): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
    .setIssuer('https://dauth.example')
    .setSubject('42')
    .setIssuedAt()
    .setExpirationTime('3600s')
    .setJti(randomUUID())
    .sign(privateKey);
}

function viaNodeCrypto(): string {
  return viaNode((input) => sign('sha256', input, { key: keyObject, dsaEncoding: 'ieee-p1363' }));
}

/** What `TokenService.signJwt` does (issue 43): the KeyObject alone (DER out), then r || s. */
function viaNodeCryptoDer(): string {
  return viaNode((input) => derToP1363(sign('sha256', input, keyObject), 32));
}

function viaNode(signInput: (input: Buffer) => Buffer): string {
  const iat = Math.floor(Date.now() / 1000);
  const payload = {
    ...claims,
    iss: 'https://dauth.example',
    sub: '42',
    iat,
    exp: iat + 3600,
    jti: randomUUID(),
  };
  const input = `${b64(JSON.stringify({ alg: 'ES256', kid, typ: 'JWT' }))}.${b64(JSON.stringify(payload))}`;
  const signature = signInput(Buffer.from(input));
  return `${input}.${signature.toString('base64url')}`;
}

/** µs per token, wall and process CPU (all threads: the thread pool's work counts too). */
async function measure(run: () => Promise<string> | string): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < tokens; i++) await run();
  const wall = ((performance.now() - t0) * 1000) / tokens;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / tokens };
}

await measure(viaJose);
await measure(viaNodeCrypto);
await measure(viaNodeCryptoDer);
const jose: { wall: number; cpu: number }[] = [];
const node: { wall: number; cpu: number }[] = [];
const der: { wall: number; cpu: number }[] = [];
for (let r = 0; r < rounds; r++) {
  jose.push(await measure(viaJose));
  node.push(await measure(viaNodeCrypto));
  der.push(await measure(viaNodeCryptoDer));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
const result = {
  bench: 'ES256 token signing',
  tokens_per_round: tokens,
  rounds,
  jose_webcrypto_us: { wall: median(jose.map((m) => m.wall)), cpu: median(jose.map((m) => m.cpu)) },
  node_crypto_us: { wall: median(node.map((m) => m.wall)), cpu: median(node.map((m) => m.cpu)) },
  node_crypto_der_us: { wall: median(der.map((m) => m.wall)), cpu: median(der.map((m) => m.cpu)) },
};
const m = machineInfo();
console.log(
  `ES256 JWT signing, ${tokens} tokens × ${rounds} alternating rounds; ${m.cores} cores (${m.cpu}), Node ${m.node}`,
);
console.log('| path | wall µs/token (median, spread) | process CPU µs/token (median, spread) |');
console.log('| --- | ---: | ---: |');
console.log(
  `| jose SignJWT (WebCrypto) | ${result.jose_webcrypto_us.wall.toFixed(1)} (${spread(jose.map((x) => x.wall))}) | ${result.jose_webcrypto_us.cpu.toFixed(1)} (${spread(jose.map((x) => x.cpu))}) |`,
);
console.log(
  `| node:crypto sign ({ key, dsaEncoding: 'ieee-p1363' }) | ${result.node_crypto_us.wall.toFixed(1)} (${spread(node.map((x) => x.wall))}) | ${result.node_crypto_us.cpu.toFixed(1)} (${spread(node.map((x) => x.cpu))}) |`,
);
console.log(
  `| node:crypto sign (KeyObject alone, DER → r‖s; TokenService) | ${result.node_crypto_der_us.wall.toFixed(1)} (${spread(der.map((x) => x.wall))}) | ${result.node_crypto_der_us.cpu.toFixed(1)} (${spread(der.map((x) => x.cpu))}) |`,
);
writeBenchSummary(result);
