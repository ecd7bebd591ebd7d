import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import FileTimesReporter from './vitest.fileTimes.js';

const sdkSources = fileURLToPath(new URL('./packages/sdk/src/', import.meta.url));

const testFiles = 'packages/*/test/**/*.test.ts';
/**
 * Files that need a module graph of their own: they `vi.mock` a module the server's sources import
 * (a mock cannot reach modules another file already loaded in the same worker), fake timers, or assert
 * which modules a process has loaded.
 */
const needsFreshModules = [
  'packages/server/test/observability/tracingOff.test.ts',
  'packages/server/test/architecture/routeAccess.test.ts',
  'packages/server/test/architecture/routeTable.test.ts',
  'packages/server/test/orgs/roleMatrix.test.ts',
  'packages/server/test/logging/requestLogger.test.ts',
  'packages/sdk/test/webhooks.test.ts',
];

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
    // Chain and browser tests start real processes; keep parallelism modest on small machines.
    pool: 'forks',
    // VITEST_TIMINGS=<file>: each file's duration, hooks included, as JSON too (.ci/run lists the slowest,
    // docs/testing.md).
    reporters: process.env.VITEST_TIMINGS
      ? ['default', new FileTimesReporter(process.env.VITEST_TIMINGS)]
      : ['default'],
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: [testFiles],
          exclude: [...needsFreshModules, '**/node_modules/**'],
          // A worker keeps its loaded modules from one file to the next: evaluating the server's module
          // graph again for every file was about a third of the suite's time (docs/testing.md). Every file
          // starts its own servers, databases and chains, and closes them in its afterAll.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: needsFreshModules, isolate: true } },
    ],
  },
});
