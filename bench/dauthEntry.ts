/**
 * dauth as `npm start` runs it, with the chain journal switchable for benchmarks: BENCH_JOURNAL=off starts
 * it without (never in production; it measures what the journal costs).
 */
import { loadConfig } from '../packages/server/src/config.js';
import { startServer } from '../packages/server/src/server.js';

const server = await startServer(loadConfig(process.env), {
  chain: { journal: process.env.BENCH_JOURNAL !== 'off' },
});
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
