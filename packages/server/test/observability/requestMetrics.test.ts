import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BUCKETS, ServiceMetrics } from '../../src/observability/metrics.js';

const NAMES = ['dauth_http_requests_total', 'dauth_http_request_duration_seconds'];

/** The lines of the two request metrics in a Prometheus text exposition. */
const requestLines = (text: string) =>
  text.split('\n').filter((line) => NAMES.some((name) => line.includes(name)));

describe('request metrics (ServiceMetrics.recordRequest)', () => {
  const answers: [string, string, number, number][] = [
    ['GET', '/v1/oauth/validate', 200, 0.0004],
    ['GET', '/v1/oauth/validate', 200, 0.001], // on a bound: counted in that bucket (le is inclusive)
    ['GET', '/v1/oauth/validate', 401, 0.003],
    ['POST', '/oauth/token', 200, 0.02],
    ['POST', '/oauth/token', 200, 45], // above every bound: +Inf only
    ['GET', 'unmatched', 404, 0.0001],
    ['GET', '/v1/oauth/validate', 200, 0.7],
  ];

  it("exposes exactly what prom-client's Counter and Histogram would for the same answers", async () => {
    const metrics = new ServiceMetrics();
    const reference = new Registry();
    const counter = new Counter({
      name: 'dauth_http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [reference],
    });
    const histogram = new Histogram({
      name: 'dauth_http_request_duration_seconds',
      help: 'HTTP answer latency, by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: REQUEST_DURATION_BUCKETS,
      registers: [reference],
    });
    for (const [method, route, status, seconds] of answers) {
      metrics.recordRequest(method, route, status, seconds);
      const labels = { method, route, status: String(status) };
      counter.inc(labels);
      histogram.observe(labels, seconds);
    }
    const ours = requestLines((await metrics.render()).body);
    expect(ours.length).toBeGreaterThan(4 * (REQUEST_DURATION_BUCKETS.length + 4));
    expect(ours).toEqual(requestLines(await reference.metrics()));
  });

  it('keeps counting across scrapes, and the JSON form carries the same series', async () => {
    const metrics = new ServiceMetrics();
    metrics.recordRequest('GET', '/healthz', 200, 0.002);
    await metrics.render();
    metrics.recordRequest('GET', '/healthz', 200, 0.002);
    const json = await metrics.registry.getMetricsAsJSON();
    const total = json.find((m) => m.name === 'dauth_http_requests_total')!;
    expect(total.values).toEqual([{ labels: { method: 'GET', route: '/healthz', status: '200' }, value: 2 }]);
    const durations = json.find((m) => m.name === 'dauth_http_request_duration_seconds')!;
    expect(durations.type).toBe('histogram');
    expect(
      (durations.values as { metricName?: string; value: number }[]).find(
        (v) => v.metricName === 'dauth_http_request_duration_seconds_count',
      )?.value,
    ).toBe(2);
    metrics.registry.resetMetrics();
    expect(requestLines((await metrics.render()).body).filter((l) => !l.startsWith('#'))).toEqual([]);
  });
});
