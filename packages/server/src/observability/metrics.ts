import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  readonly #requests: Counter<'method' | 'route' | 'status'>;
  readonly #durations: Histogram<'method' | 'route' | 'status'>;
  readonly #events = new Map<string, Counter<string>>();
  readonly #sizes = new Map<string, Histogram<string>>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'dauth_' });
    this.#requests = new Counter({
      name: 'dauth_http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.#durations = new Histogram({
      name: 'dauth_http_request_duration_seconds',
      help: 'HTTP answer latency, by route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
  }

  /** `route` is the route template (`/v1/market/listings/:id`), never the raw URL, to bound cardinality. */
  recordRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.#requests.inc(labels);
    this.#durations.observe(labels, seconds);
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
      histogram = new Histogram({
        name,
        help,
        buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
        registers: [this.registry],
      });
      this.#sizes.set(name, histogram);
    }
    histogram.observe(value);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
