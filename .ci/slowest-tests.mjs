// The slowest test files of a vitest JSON report (VITEST_TIMINGS, vitest.config.ts), slowest first:
//   node .ci/slowest-tests.mjs <report.json> [count]
// Files run two at a time (maxWorkers 2), so their sum is about twice the suite's wall time.
import fs from 'node:fs';
import path from 'node:path';

const [file, count = '20'] = process.argv.slice(2);
const report = JSON.parse(fs.readFileSync(file, 'utf8'));
const files = report.testResults
  .map((r) => ({ name: path.relative(process.cwd(), r.name), seconds: (r.endTime - r.startTime) / 1000 }))
  .sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((sum, f) => sum + f.seconds, 0);
const shown = files.slice(0, Number(count));
console.log(
  `\nThe ${shown.length} slowest of ${files.length} test files, by their tests' time (imports not counted; ${total.toFixed(0)} s in all, two files at a time):`,
);
for (const f of shown) console.log(`${f.seconds.toFixed(1).padStart(8)} s  ${f.name}`);
