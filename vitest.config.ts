import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const sdkSources = fileURLToPath(new URL('./packages/sdk/src/', import.meta.url));

export default defineConfig({
  resolve: {
    conditions: ['development'],
    // The published SDK exports only dist/; tests that import it by name run against its sources.
    alias: [
      { find: /^@dauth\/sdk$/, replacement: `${sdkSources}index.ts` },
      { find: /^@dauth\/sdk\/(express|fastify)$/, replacement: `${sdkSources}$1.ts` },
    ],
  },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // Chain and browser tests start real processes; keep parallelism modest on small machines.
    pool: 'forks',
    // VITEST_TIMINGS=<file>: each file's duration as JSON too (.ci/run lists the slowest, docs/testing.md).
    reporters: process.env.VITEST_TIMINGS
      ? ['default', ['json', { outputFile: process.env.VITEST_TIMINGS }]]
      : ['default'],
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
