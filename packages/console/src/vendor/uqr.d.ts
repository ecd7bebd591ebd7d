// The types of uqr (QR codes), whose ES module `scripts/vendor.mjs` copies to dist/vendor/uqr.js.
export { encode } from 'uqr';
