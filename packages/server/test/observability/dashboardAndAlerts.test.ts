import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inCi } from '../helpers/environment.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const dashboardPath = path.join(root, 'docs/grafana/dauth.json');
const rulesPath = path.join(root, 'docs/prometheus/alerts.yml');
const operations = fs.readFileSync(path.join(root, 'docs/operations.md'), 'utf8');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** Every PromQL expression of the dashboard (panels inside rows included). */
function dashboardQueries(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(fs.readFileSync(dashboardPath, 'utf8')) as {
    panels: Panel[];
    templating: { list: { query?: unknown }[] };
  };
  const out: { panel: string; expr: string }[] = [];
  const visit = (panels: Panel[]) => {
    for (const p of panels) {
      for (const t of p.targets ?? []) out.push({ panel: p.title, expr: t.expr });
      visit(p.panels ?? []);
    }
  };
  visit(dashboard.panels);
  for (const v of dashboard.templating.list) {
    const q = (v.query as { query?: string } | undefined)?.query;
    if (typeof q === 'string') out.push({ panel: 'variable', expr: q });
  }
  return out;
}

/** The metric names an expression reads, as the exposition names them (histogram series to their family). */
const metricsOf = (expr: string): string[] =>
  [...expr.matchAll(/\b(dauth_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ''));

/** The alert rules' names and expressions (the file is the simple YAML above: one `alert:`/`expr:` pair each). */
function rules(): { alert: string; expr: string; runbook: string }[] {
  const text = fs.readFileSync(rulesPath, 'utf8');
  return text
    .split(/\n\s+- alert: /)
    .slice(1)
    .map((block) => ({
      alert: block.split('\n')[0]!.trim(),
      expr: /\n\s+expr: (.*)/.exec(block)![1]!,
      runbook: /runbook: '([^']+)'/.exec(block)![1]!,
    }));
}

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

/**
 * Issue 42: docs/ ships a Grafana dashboard over the service's Prometheus metrics and alert rules with a
 * runbook each. Every query of the dashboard and every rule names only metrics a real `/metrics` scrape
 * lists; the dashboard is an importable Grafana JSON (its data source an input); each rule's runbook is a
 * heading of docs/operations.md; and `promtool check rules` accepts the file (in CI it must run).
 */
describe('the Grafana dashboard and the Prometheus alert rules', () => {
  let server: TestServer;
  let exposition = '';
  beforeAll(async () => {
    server = await startTestServer();
    const res = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${server.services.secrets.adminApiKey}` },
    });
    expect(res.status).toBe(200);
    exposition = await res.text();
  });
  afterAll(() => server?.close());
  const exported = () => new Set([...exposition.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));

  it('every dashboard query names metrics the service exports', () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    const names = exported();
    for (const { panel, expr } of queries) {
      const metrics = metricsOf(expr);
      expect(metrics.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      for (const metric of metrics) expect(names, `${panel}: ${metric}`).toContain(metric);
    }
  });

  it('the dashboard is importable: a data source input, unique panel ids, a title and uid', () => {
    const dashboard = JSON.parse(fs.readFileSync(dashboardPath, 'utf8')) as Record<string, unknown> & {
      panels: { id: number; datasource?: { uid: string } }[];
      __inputs: { name: string; type: string; pluginId: string }[];
    };
    expect(dashboard.__inputs).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    );
    expect(dashboard).toMatchObject({ title: 'dauth', uid: 'dauth-overview' });
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels.filter((p) => p.datasource))
      expect(p.datasource!.uid).toBe('${DS_PROMETHEUS}');
  });

  it('the alert rules cover the issue, read exported metrics and each have a runbook paragraph', () => {
    const all = rules();
    const names = all.map((r) => r.alert);
    for (const alert of [
      'DauthNotReady',
      'DauthChainUnavailable',
      'DauthFeeCapReached',
      'DauthPaymasterDepositLow',
      'DauthSponsorshipCapNear',
      'DauthWebhookBacklogOld',
      'DauthJournalUnrecoverable',
      'DauthReorg',
    ]) {
      expect(names).toContain(alert);
    }
    const exportedNames = exported();
    const headings = [...operations.matchAll(/^#{2,4} (.+)$/gm)].map((m) => anchorOf(m[1]!));
    for (const rule of all) {
      for (const metric of metricsOf(rule.expr))
        expect(exportedNames, `${rule.alert}: ${metric}`).toContain(metric);
      const anchor = rule.runbook.split('#')[1]!;
      expect(headings, `${rule.alert}'s runbook ${anchor}`).toContain(anchor);
      expect(operations, `docs/operations.md names ${rule.alert}`).toContain(rule.alert);
    }
  });

  const promtool = (() => {
    try {
      return execFileSync('bash', ['-c', 'command -v promtool'], { encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  })();
  if (!promtool && inCi)
    throw new Error("CI must have promtool (Debian's prometheus package: .ci/run installs it)");
  it.skipIf(!promtool)(
    `promtool check rules accepts docs/prometheus/alerts.yml${promtool ? '' : ' (skipped: promtool is not installed; apt-get install prometheus)'}`,
    () => {
      const out = execFileSync(promtool!, ['check', 'rules', rulesPath], { encoding: 'utf8' });
      expect(out).toContain('SUCCESS');
      expect(out).toContain(`${rules().length} rules found`);
      // It does refuse a broken rule (the check bites).
      const broken = path.join(
        fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'dauth-rules-')),
        'broken.yml',
      );
      fs.writeFileSync(
        broken,
        'groups:\n  - name: x\n    rules:\n      - alert: X\n        expr: rate(dauth_http_requests_total[5m]\n',
      );
      expect(() => execFileSync(promtool!, ['check', 'rules', broken], { stdio: 'pipe' })).toThrow();
    },
  );
});
