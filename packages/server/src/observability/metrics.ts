import { collectDefaultMetrics, Counter, Gauge, Histogram, type Metric, Registry } from 'prom-client';

/** A reading taken at scrape time: one number, or one number per label value. */
export type GaugeReading = number | Map<string, number> | undefined;

export interface GaugeDefinition {
  name: string;
  help: string;
  /** The one label a multi-valued reading is keyed by (e.g. `pool`). */
  label?: string;
  read(): GaugeReading | Promise<GaugeReading>;
}

/**
 * The service's Prometheus metrics (`GET /metrics`). Request metrics are recorded by the HTTP layer;
 * everything else is read at scrape time from the component that owns it, so no domain code
 * depends on prom-client and an idle service costs nothing.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests = new RequestSeries();
  readonly #events = new Map<string, Counter<string>>();
  readonly #sizes = new Map<string, Histogram<string>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'dauth_' });
    const requests = this.#requests;
    this.registry.registerMetric(
      exported(
        'dauth_http_requests_total',
        'HTTP requests answered, by route template and status',
        'counter',
        () => requests.counterValues(),
        () => requests.reset(),
      ),
    );
    this.registry.registerMetric(
      exported(
        'dauth_http_request_duration_seconds',
        'HTTP answer latency, by route template and status',
        'histogram',
        () => requests.histogramValues('dauth_http_request_duration_seconds'),
        () => requests.reset(),
      ),
    );
  }

  /**
   * `route` is the route template (`/v1/market/listings/:id`), never the raw URL, to bound cardinality.
   * Runs on every answer, so it only adds to numbers in memory; the exposition is built at scrape time.
   */
  recordRequest(method: string, route: string, status: number, seconds: number): void {
    this.#requests.record(method, route, status, seconds);
  }

  /** A gauge read from its owner at every scrape. */
  gauge(definition: GaugeDefinition): void {
    const { label } = definition;
    new Gauge({
      name: definition.name,
      help: definition.help,
      labelNames: label ? [label] : [],
      registers: [this.registry],
      async collect() {
        const reading = await definition.read();
        this.reset();
        if (reading === undefined) return;
        if (typeof reading === 'number') this.set(reading);
        else for (const [value, n] of reading) this.set({ [label ?? 'kind']: value }, n);
      },
    });
  }

  /**
   * Registers a counter before its first event, so `/metrics` lists it (at 0, or its HELP and TYPE alone when
   * labelled) from the start: the alert rules and the dashboard read it even on a replica that has not
   * counted anything yet (docs/operations.md).
   */
  declareCount(name: string, help: string, labelNames: string[] = []): void {
    if (this.#events.has(name)) return;
    const counter = new Counter({ name, help, labelNames, registers: [this.registry] });
    if (labelNames.length === 0) counter.inc(0);
    this.#events.set(name, counter);
  }

  /** Registers a size distribution before its first observation (see `declareCount`). */
  declareSize(name: string, help: string): void {
    if (this.#sizes.has(name)) return;
    this.#sizes.set(name, sizeHistogram(name, help, this.registry));
  }

  /** A monotonically increasing count of domain events (bundles sent, reverts by reason, …). */
  count(name: string, help: string, labels: Record<string, string> = {}, by = 1): void {
    let counter = this.#events.get(name);
    if (!counter) {
      counter = new Counter({ name, help, labelNames: Object.keys(labels), registers: [this.registry] });
      this.#events.set(name, counter);
    }
    counter.inc(labels, by);
  }

  /** A distribution of sizes (operations per bundle, records per consumption batch). */
  observeSize(name: string, help: string, value: number): void {
    let histogram = this.#sizes.get(name);
    if (!histogram) {
      histogram = sizeHistogram(name, help, this.registry);
      this.#sizes.set(name, histogram);
    }
    histogram.observe(value);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

function sizeHistogram(name: string, help: string, registry: Registry): Histogram<string> {
  return new Histogram({ name, help, buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500], registers: [registry] });
}

/** The latency buckets of `dauth_http_request_duration_seconds` (upper bounds, seconds). */
export const REQUEST_DURATION_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

type RequestLabels = { method: string; route: string; status: string };

interface Series {
  labels: RequestLabels;
  count: number;
  sum: number;
  /** Answers per bucket, not cumulative; the last slot counts those above every bound (`+Inf`). */
  buckets: number[];
}

/**
 * The request counter and latency histogram, kept as plain numbers per (route, method, status).
 * prom-client's own `Counter.inc` and `Histogram.observe` build a label hash string and validate
 * the labels on every call: 2–4 µs an answer on the benchmark VM, a third of what token validation
 * cost beyond a bare Fastify route (docs/performance-http.md, round 2). Here an answer costs three
 * `Map` lookups on strings Fastify already holds (the route template, the method) and two additions;
 * the exposition is identical to prom-client's (same names, buckets and label order).
 */
class RequestSeries {
  readonly #byRoute = new Map<string, Map<string, Map<number, Series>>>();

  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.#byRoute.get(route);
    if (!byMethod) this.#byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array<number>(REQUEST_DURATION_BUCKETS.length + 1).fill(0),
      };
      byStatus.set(status, series);
    }
    series.count += 1;
    series.sum += seconds;
    let bucket = 0;
    while (bucket < REQUEST_DURATION_BUCKETS.length && seconds > REQUEST_DURATION_BUCKETS[bucket]!) bucket++;
    series.buckets[bucket]! += 1;
  }

  *#all(): Generator<Series> {
    for (const byMethod of this.#byRoute.values()) {
      for (const byStatus of byMethod.values()) yield* byStatus.values();
    }
  }

  reset(): void {
    this.#byRoute.clear();
  }

  counterValues(): ExportedValue[] {
    return [...this.#all()].map((s) => ({ labels: { ...s.labels }, value: s.count }));
  }

  histogramValues(name: string): ExportedValue[] {
    const values: ExportedValue[] = [];
    for (const s of this.#all()) {
      let cumulative = 0;
      REQUEST_DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push(
        { labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${name}_bucket` },
        { labels: { ...s.labels }, value: s.sum, metricName: `${name}_sum` },
        { labels: { ...s.labels }, value: s.count, metricName: `${name}_count` },
      );
    }
    return values;
  }
}

interface ExportedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** A metric prom-client's registry exposes like its own (it reads `get()` at every scrape). */
function exported(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => ExportedValue[],
  reset: () => void,
) {
  const get = async () => ({ name, help, type, aggregator: 'sum' as const, values: values() });
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get,
    getForPromString: get,
    reset,
  } as unknown as Metric;
}
