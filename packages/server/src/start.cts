/**
 * The process entry of `npm start`. libuv sizes its thread pool once, at first use, from
 * UV_THREADPOOL_SIZE, and an ES module entry is itself read through that pool; this file is
 * CommonJS, which Node reads synchronously, so the default set here is in place before `main.js`
 * (and anything else) loads. The pool defaults to the core count (at least 2), where PIN
 * verifications measured best (docs/performance-pin.md); an explicit UV_THREADPOOL_SIZE wins.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS entry on purpose (above)
import os = require('node:os');

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, os.availableParallelism()));
void import('./main.js');
