import fs from 'node:fs';
const p = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const target = process.argv[3];
const byId = new Map(p.nodes.map(n => [n.id, n]));
const parent = new Map(); for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const t = new Map(); p.samples.forEach((s, i) => t.set(s, (t.get(s) ?? 0) + (p.timeDeltas[i] ?? 0)));
const stacks = new Map();
for (const [id, dt] of t) {
  const n = byId.get(id); if (n.callFrame.functionName !== target) continue;
  let cur = parent.get(id); const chain = [];
  while (cur !== undefined && chain.length < 14) { const m = byId.get(cur); chain.push(`${m.callFrame.functionName}@${m.callFrame.url.split('/').slice(-2).join('/')}`); cur = parent.get(cur); }
  const k = chain.join(' < '); stacks.set(k, (stacks.get(k) ?? 0) + dt);
}
for (const [k, v] of [...stacks].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log((v / 1000).toFixed(0), k, '\n');
