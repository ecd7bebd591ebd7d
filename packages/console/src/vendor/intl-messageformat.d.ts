// The types of FormatJS' intl-messageformat (ICU messages), whose self-contained ES module
// `scripts/vendor.mjs` copies to dist/vendor/intl-messageformat.js.
export { IntlMessageFormat } from 'intl-messageformat';
