import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** One test file's time in a run, as `.ci/slowest-tests.mjs` reads it (seconds). */
export interface FileTime {
  file: string;
  /** Its tests and hooks (beforeAll's servers and chains included). */
  seconds: number;
  /** Importing the file (its top-level code included) and collecting its tests. */
  collectSeconds: number;
}

/**
 * Writes each test file's time to `VITEST_TIMINGS` (vitest.config.ts) as JSON. Vitest's JSON report times a
 * file by its tests alone, without its hooks: a file whose beforeAll deploys on a 3-second chain showed as
 * 0.1 s there (32 s with its hook), so the slowest files `.ci/run` listed missed such files.
 */
export default class FileTimesReporter implements Reporter {
  constructor(private readonly outputFile: string) {}

  onTestRunEnd(testModules: readonly TestModule[]): void {
    const times: FileTime[] = testModules.map((module) => {
      const diagnostic = module.diagnostic();
      return {
        file: path.relative(process.cwd(), module.moduleId),
        seconds: round(diagnostic.duration),
        collectSeconds: round(diagnostic.collectDuration),
      };
    });
    fs.writeFileSync(this.outputFile, `${JSON.stringify(times, null, 1)}\n`);
  }
}

const round = (ms: number) => Math.round(ms) / 1000;
