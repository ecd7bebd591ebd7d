import net from 'node:net';

/**
 * Where the production-path services live in tests. They are used whenever reachable, and in CI
 * (CI=true) their absence is a failure rather than a skip. `DAUTH_TEST_SERVICES=embedded`
 * (`npm run test:embedded`) leaves them out on purpose: only the embedded default (SQLite + anvil) runs.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
export const inCi = process.env.CI === 'true' || process.env.CI === '1';

function reachable(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || defaultPort) });
    socket.setTimeout(500);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

export const embeddedOnly = process.env.DAUTH_TEST_SERVICES === 'embedded';

async function required(name: string, url: string, port: number): Promise<boolean> {
  if (embeddedOnly) return false;
  const ok = await reachable(url, port);
  if (!ok && inCi) throw new Error(`${name} at ${url} must be reachable in CI`);
  return ok;
}

export const postgresAvailable = await required('PostgreSQL', TEST_DATABASE_URL, 5432);
export const redisAvailable = await required('Redis', TEST_REDIS_URL, 6379);
