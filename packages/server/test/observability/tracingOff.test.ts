import { createRequire, registerHooks } from 'node:module';
import { trace } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startOtlpReceiver } from '../helpers/otlp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Every module this process resolves from now on (ESM imports and requires alike), as resolved URLs. */
const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.push(result.url);
    return result;
  },
});
const SDK = /@opentelemetry\/(sdk-trace|exporter-trace-otlp|otlp-|context-async-hooks|resources)/;
const sdkLoaded = () =>
  resolved.some((url) => SDK.test(url)) ||
  Object.keys(createRequire(import.meta.url).cache).some((file) => SDK.test(file));

/**
 * Issue 42: without any OTEL_* variable tracing is off and costs nothing: no SDK or exporter module is
 * loaded (a resolve hook and require.cache watch every load), the API's tracer stays the no-op one, nothing
 * is sent anywhere, and log lines have no trace ids. The same probe then sees the exporter load once an
 * endpoint is set, so it is known to bite.
 */
describe('tracing off without OTEL_* variables', () => {
  let server: TestServer | undefined;
  afterAll(() => server?.close());

  it('the configuration has no tracing without an endpoint, or with the SDK disabled', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x' }).tracing).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing,
    ).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_EXPORTER: 'none' })
        .tracing,
    ).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' }).tracing).toMatchObject({
      url: 'http://127.0.0.1:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'dauth',
      sampler: 'parentbased_always_on',
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20x,tenant=t1',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }).tracing,
    ).toMatchObject({
      url: 'http://b:4318/traces',
      protocol: 'http/json',
      headers: { authorization: 'Bearer x', tenant: 't1' },
      resourceAttributes: { 'deployment.environment': 'prod' },
      samplerRatio: 0.25,
    });
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/grpc is not supported/);
  });

  it('a server and its requests load no SDK or exporter module and export nothing', async () => {
    const receiver = await startOtlpReceiver();
    try {
      server = await startTestServer();
      const res = await fetch(`${server.url}/v1/dev-user/register`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
        },
        body: JSON.stringify({ email: `off-${Date.now()}@example.com`, password: 'correct horse battery' }),
      });
      expect(res.status).toBe(201);
      expect(server.services.tracing.enabled).toBe(false);
      expect(sdkLoaded()).toBe(false);
      // The API's global tracer is its no-op one: spans record nothing.
      expect(trace.getTracer('dauth').startSpan('probe').isRecording()).toBe(false);
      expect(receiver.spans).toEqual([]);
      await server.close();
      server = undefined;

      // The probe bites: an endpoint loads the exporter.
      server = await startTestServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
      expect(server.services.tracing.enabled).toBe(true);
      expect(sdkLoaded()).toBe(true);
      expect(resolved.some((url) => url.includes('exporter-trace-otlp-proto'))).toBe(true);
      expect(resolved.some((url) => url.includes('exporter-trace-otlp-http'))).toBe(false);
    } finally {
      await receiver.close();
    }
  });
});
