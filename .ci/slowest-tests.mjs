// The slowest test files of a run, slowest first, from the file times vitest.fileTimes.ts wrote
// (VITEST_TIMINGS, vitest.config.ts):
//   node .ci/slowest-tests.mjs <file-times.json> [count]
// A file's time is its tests and hooks; importing it is shown apart. Files run two at a time (maxWorkers 2),
// so the sum is about twice the suite's wall time.
import fs from 'node:fs';

const [file, count = '20'] = process.argv.slice(2);
const files = JSON.parse(fs.readFileSync(file, 'utf8')).sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((sum, f) => sum + f.seconds + f.collectSeconds, 0);
const shown = files.slice(0, Number(count));
console.log(
  `\nThe ${shown.length} slowest of ${files.length} test files, by their tests' and hooks' time (import apart; ${total.toFixed(0)} s in all with imports, two files at a time):`,
);
for (const f of shown) {
  console.log(`${f.seconds.toFixed(1).padStart(8)} s  ${f.file}  (import ${f.collectSeconds.toFixed(1)} s)`);
}
