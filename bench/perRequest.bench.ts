/**
 * Micro-benchmark of the per-request pieces of dauth's HTTP layer that are not I/O (issue 43,
 * docs/performance-http.md "Round 5"): each piece called in a loop on inputs shaped like a token
 * validation's (a ~600-character ES256 JWT in a fresh header string every call, as the HTTP parser makes
 * one per request), nanoseconds per call, median of alternating rounds. Not a test: it asserts nothing.
 *
 *   node --conditions development --import tsx bench/perRequest.bench.ts [--calls 200000] [--rounds 5]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import Fastify, { type FastifyRequest } from 'fastify';
import { bearerToken } from '../packages/server/src/http/adminAuth.js';

const { values } = parseArgs({
  options: { calls: { type: 'string', default: '200000' }, rounds: { type: 'string', default: '5' } },
});
const calls = Number(values.calls);
const rounds = Number(values.rounds);

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = [
  b64({ alg: 'ES256', kid: randomUUID(), typ: 'JWT' }),
  b64({
    token_use: 'access',
    client_id: 'decb17559897423c077883ef89a8259d',
    gid: randomUUID(),
    iss: 'http://127.0.0.1:38465',
    sub: '86561529913177',
    iat: 1795933516,
    exp: 1795937116,
    jti: randomUUID(),
  }),
  Buffer.alloc(64, 7).toString('base64url'),
].join('.');
const header = `Bearer ${jwt}`;
/** A new, flat string equal to `header` on each call, as each request's parsed header is. */
const freshHeader = (i: number) => (i & 1 ? `${header} ` : `${header}  `).trimEnd();
const asRequest = (authorization: string) => ({ headers: { authorization } }) as FastifyRequest;

const OLD_BEARER = /^Bearer\s+(\S+)\s*$/i;
const signatureOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);
const byText = new Map([[jwt, { exp: 1 }]]);
const bySignature = new Map([[signatureOf(jwt), { token: jwt, claims: { exp: 1 } }]]);

// A request object of a real Fastify route, for its getters.
const app = Fastify();
let fastifyRequest: FastifyRequest | undefined;
app.get('/v1/oauth/validate', (request, reply) => {
  fastifyRequest = request;
  void reply.send('ok');
});
await app.inject({ url: '/v1/oauth/validate' });
const request = fastifyRequest!;

const pieces: Record<string, (i: number) => unknown> = {
  'fresh header string (the loop itself)': (i) => freshHeader(i),
  'bearer token, capturing regex (before)': (i) => OLD_BEARER.exec(freshHeader(i))?.[1],
  'bearer token, bearerToken() (after)': (i) => bearerToken(asRequest(freshHeader(i))),
  'regex + lookup keyed by the whole JWT (before)': (i) => byText.get(OLD_BEARER.exec(freshHeader(i))![1]!),
  'bearerToken() + lookup keyed by the whole JWT': (i) => byText.get(bearerToken(asRequest(freshHeader(i)))!),
  'bearerToken() + lookup keyed by the signature (after)': (i) => {
    const token = bearerToken(asRequest(freshHeader(i)))!;
    const entry = bySignature.get(signatureOf(token));
    return entry !== undefined && entry.token === token ? entry.claims : undefined;
  },
  'request id, crypto.randomUUID()': () => randomUUID(),
  'request.routeOptions.url (metrics, admin limiter)': () => request.routeOptions.url,
};

function nsPerCall(piece: (i: number) => unknown): number {
  let sink: unknown;
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) sink = piece(i);
  const ns = Number(process.hrtime.bigint() - start) / calls;
  if (sink === Symbol.for('never')) console.log(sink);
  return ns;
}

const results = new Map<string, number[]>();
for (const piece of Object.values(pieces)) nsPerCall(piece); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const [name, piece] of Object.entries(pieces)) {
    results.set(name, [...(results.get(name) ?? []), nsPerCall(piece)]);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `${calls} calls per round, ${rounds} rounds, median ns per call (JWT of ${jwt.length} characters)`,
);
for (const [name, ns] of results) console.log(`${name.padEnd(52)} ${median(ns).toFixed(0).padStart(6)} ns`);
