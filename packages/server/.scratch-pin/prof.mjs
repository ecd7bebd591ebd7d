import fs from 'node:fs';
const file = process.argv[2];
const p = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map(n => [n.id, n]));
const self = new Map();
const dt = p.timeDeltas; let total = 0;
const counts = new Map();
for (let i = 0; i < p.samples.length; i++) { counts.set(p.samples[i], (counts.get(p.samples[i]) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0; }
// self time by function+url
const agg = new Map();
for (const [id, t] of counts) { const n = byId.get(id); const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-3).join('/')}:${n.callFrame.lineNumber}`; agg.set(k, (agg.get(k) ?? 0) + t); }
const top = [...agg].sort((a, b) => b[1] - a[1]).slice(0, 35);
console.log('total ms', (total / 1000).toFixed(0));
for (const [k, t] of top) console.log((t / 1000).toFixed(0).padStart(7), k);
// inclusive time for some frames
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, t] of counts) { const seen = new Set(); let cur = id; while (cur !== undefined) { const n = byId.get(cur); const k = `${n.callFrame.functionName} ${n.callFrame.url.split('/').slice(-2).join('/')}`; if (!seen.has(k)) { incl.set(k, (incl.get(k) ?? 0) + t); seen.add(k); } cur = parent.get(cur); } }
console.log('--- inclusive');
for (const [k, t] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log((t / 1000).toFixed(0).padStart(7), k);
