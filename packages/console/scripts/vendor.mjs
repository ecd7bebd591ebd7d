// Copies the console's third-party libraries, uPlot (the charts), uqr (the QR code of a TOTP enrolment) and
// FormatJS' intl-messageformat (the ICU messages of src/i18n, docs/console.md), from their pinned npm packages
// into the compiled console, so the server serves each as a file of its own: no CDN, nothing fetched at run
// time. `npm run build` runs this after `tsc -b`.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const uplot = path.dirname(require.resolve('uplot/package.json'));
// uqr's exports map has no ./package.json: resolve its CommonJS entry (dist/index.cjs) instead.
const uqr = path.dirname(path.dirname(require.resolve('uqr')));
// intl-messageformat's entry imports its parser by bare name, which a browser cannot resolve without an
// import map (an inline script the CSP refuses); the package also ships one self-contained ES module
// (`intl-messageformat.iife.js`, despite its name it ends in `export { … }`), which is the file copied.
const messageformat = path.dirname(require.resolve('intl-messageformat'));
const out = fileURLToPath(new URL('../dist/vendor/', import.meta.url));
fs.mkdirSync(out, { recursive: true });
const files = [
  [uplot, 'dist/uPlot.esm.js', 'uplot.js'],
  [uplot, 'dist/uPlot.min.css', 'uplot.css'],
  [uqr, 'dist/index.mjs', 'uqr.js'],
  [messageformat, 'intl-messageformat.iife.js', 'intl-messageformat.js'],
];
for (const [dir, from, to] of files) fs.copyFileSync(path.join(dir, from), path.join(out, to));
