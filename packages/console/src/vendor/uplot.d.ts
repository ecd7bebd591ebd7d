// The types of uPlot (the charts), whose ES module `scripts/vendor.mjs` copies to dist/vendor/uplot.js.
import uPlot from 'uplot';
export default uPlot;
