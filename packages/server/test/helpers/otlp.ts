import http from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/**
 * A real OTLP/HTTP traces receiver (`POST /v1/traces`) for the tracing suites: it decodes what the
 * exporter sends, protobuf (`application/x-protobuf`, with the opentelemetry-proto messages below) or JSON
 * (`application/json`), into plain spans, and remembers each request's content type.
 */

/** The messages of opentelemetry-proto's trace service that a span export uses (field numbers as upstream). */
const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10;
  repeated Link links = 13; Status status = 15; fixed32 flags = 16;
}
message Link { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; repeated KeyValue attributes = 4; }
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
`;
const ExportRequest = protobuf.parse(PROTO).root.lookupType('otlp.ExportTraceServiceRequest');

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: { code: number; message?: string };
  service: string | undefined;
}

export interface OtlpReceiver {
  /** The base URL, to give as OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds `/v1/traces`). */
  url: string;
  spans: ReceivedSpan[];
  /** The Content-Type of each export request received. */
  contentTypes: string[];
  /** Resolves once `match` holds of the spans received so far (checked at each export), or rejects after `timeoutMs`. */
  waitFor(match: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const hex = (v: unknown): string =>
  v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'string' ? v : '';

function valueOf(any: Json | undefined): unknown {
  if (!any) return undefined;
  if ('stringValue' in any) return any.stringValue;
  if ('boolValue' in any) return any.boolValue;
  if ('intValue' in any) return Number(any.intValue);
  if ('doubleValue' in any) return Number(any.doubleValue);
  if ('arrayValue' in any) return ((any.arrayValue as Json).values as Json[] | undefined)?.map(valueOf) ?? [];
  return undefined;
}

function attributesOf(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of (list as Json[] | undefined) ?? []) out[kv.key as string] = valueOf(kv.value as Json);
  return out;
}

/** Both encodings as the same plain object (protobufjs's toObject with camelCase names, JSON as OTLP writes it). */
function spansOf(request: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (request.resourceSpans as Json[] | undefined) ?? []) {
    const service = attributesOf((rs.resource as Json | undefined)?.attributes)['service.name'] as string;
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
      for (const s of (ss.spans as Json[] | undefined) ?? []) {
        const parent = hex(s.parentSpanId);
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: parent === '' ? undefined : parent,
          name: s.name as string,
          kind: Number(s.kind ?? 0),
          attributes: attributesOf(s.attributes),
          links: ((s.links as Json[] | undefined) ?? []).map((l) => ({
            traceId: hex(l.traceId),
            spanId: hex(l.spanId),
          })),
          status: {
            code: Number((s.status as Json | undefined)?.code ?? 0),
            message: (s.status as Json | undefined)?.message as string,
          },
          service,
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers['content-type'] ?? '');
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(type);
      try {
        const decoded = type.startsWith('application/json')
          ? (JSON.parse(body.toString('utf8')) as Json)
          : (ExportRequest.toObject(ExportRequest.decode(body), { longs: String, bytes: Array }) as Json);
        // protobufjs leaves bytes as arrays with `bytes: Array`: make them Uint8Arrays for `hex`.
        spans.push(...spansOf(bytesToUint8(decoded) as Json));
      } catch (err) {
        res.writeHead(400).end(String(err));
        return;
      }
      res.writeHead(200, {
        'content-type': type.startsWith('application/json') ? 'application/json' : 'application/x-protobuf',
      });
      res.end(type.startsWith('application/json') ? '{}' : Buffer.alloc(0));
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    contentTypes,
    waitFor: (match, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!match(spans)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `OTLP receiver: expected spans not received in ${timeoutMs} ms (${spans.length} spans: ${[...new Set(spans.map((s) => s.name))].join(', ')})`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** protobufjs `bytes: Array` arrays under the id keys become Uint8Arrays. */
function bytesToUint8(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) {
    if (/(traceId|spanId|parentSpanId)$/.test(key)) return Uint8Array.from(value as number[]);
    return value.map((v) => bytesToUint8(v));
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bytesToUint8(v, k)]));
  }
  return value;
}
