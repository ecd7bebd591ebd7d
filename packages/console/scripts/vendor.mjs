// Copies the console's one third-party library, uPlot (the charts, docs/console.md), from its pinned npm
// package into the compiled console, so the server serves it as a file of its own: no CDN, nothing
// fetched at run time. `npm run build` runs this after `tsc -b`.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const uplot = path.dirname(require.resolve('uplot/package.json'));
const out = fileURLToPath(new URL('../dist/vendor/', import.meta.url));
fs.mkdirSync(out, { recursive: true });
const files = [
  ['dist/uPlot.esm.js', 'uplot.js'],
  ['dist/uPlot.min.css', 'uplot.css'],
];
for (const [from, to] of files) fs.copyFileSync(path.join(uplot, from), path.join(out, to));
