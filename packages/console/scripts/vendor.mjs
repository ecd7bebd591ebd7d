// Copies the console's third-party libraries, uPlot (the charts) and uqr (the QR code of a TOTP enrolment,
// docs/console.md), from their pinned npm packages into the compiled console, so the server serves each as
// a file of its own: no CDN, nothing fetched at run time. `npm run build` runs this after `tsc -b`.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const uplot = path.dirname(require.resolve('uplot/package.json'));
// uqr's exports map has no ./package.json: resolve its CommonJS entry (dist/index.cjs) instead.
const uqr = path.dirname(path.dirname(require.resolve('uqr')));
const out = fileURLToPath(new URL('../dist/vendor/', import.meta.url));
fs.mkdirSync(out, { recursive: true });
const files = [
  [uplot, 'dist/uPlot.esm.js', 'uplot.js'],
  [uplot, 'dist/uPlot.min.css', 'uplot.css'],
  [uqr, 'dist/index.mjs', 'uqr.js'],
];
for (const [dir, from, to] of files) fs.copyFileSync(path.join(dir, from), path.join(out, to));
