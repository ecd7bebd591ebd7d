import fc from 'fast-check';

/**
 * fast-check arbitraries built from the service's own OpenAPI document: for each route a request
 * that mostly fits its schema (so the fuzz reaches the handlers, not only the validator) with a
 * share of hostile values mixed in.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  format?: string;
}

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

export interface FuzzOperation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: JsonSchema | undefined;
}

export interface FuzzRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
}

/** Secrets and ids of a real account, so a share of requests gets past authentication. */
export interface KnownValues {
  loginJwt: string;
  adminKey: string;
  clientId: string;
  clientSecret: string;
}

export function operationsOf(doc: OpenApiDocument): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return operations;
}

/** Values that have broken services before: overflows, encodings, look-alikes, injections. */
const hostileString = fc.constantFrom(
  '',
  ' ',
  '0',
  '-1',
  '1e309',
  'NaN',
  (2n ** 256n).toString(),
  (2n ** 256n - 1n).toString(),
  '9'.repeat(80),
  '0x',
  '0x' + 'f'.repeat(64),
  '0x' + '0'.repeat(40),
  '../../etc/passwd',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '\u202Egnp.exe',
  '\u0000',
  '\uD800',
  '%00',
  '%E0%A4%A',
  'http://169.254.169.254/latest/meta-data',
  'http://127.0.0.1:1/',
  'javascript:alert(1)',
  '{"a":',
  'a'.repeat(600),
  '1.5 ether',
  '0.000000000000000000001',
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, [], {}, [null], {
    __proto__: 1,
  }),
  fc.jsonValue({ maxDepth: 3 }),
);

function schemaTypes(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (schema.type) return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

/** A value that fits `schema` most of the time; `hostile` is mixed in at every level. */
export function valueFor(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileValue;
  return fc.oneof(
    { weight: 8, arbitrary: fittingValue(schema, depth) },
    { weight: 1, arbitrary: hostileValue },
  );
}

function fittingValue(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => valueFor(s, depth + 1)));
  const types = schemaTypes(schema);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(...types.map((type) => valueOfType(type, schema, depth)));
}

function valueOfType(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.oneof(
        fc.integer({
          min: schema.minimum ?? -1000,
          max: Math.min(schema.maximum ?? 1e6, Number.MAX_SAFE_INTEGER),
        }),
        fc.constantFrom(schema.minimum ?? 0, schema.maximum ?? 0),
      );
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object':
      return objectFor(schema, depth);
    default:
      return hostileValue;
  }
}

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 64, 128);
  const plain = fc.string({ minLength: schema.minLength ?? 0, maxLength, unit: 'grapheme' });
  if (!schema.pattern) {
    if (schema.format === 'email') return fc.oneof(fc.emailAddress(), plain);
    if (schema.format === 'uri') return fc.oneof(fc.webUrl(), plain);
    return plain;
  }
  return fc.oneof(
    { weight: 4, arbitrary: fc.stringMatching(new RegExp(schema.pattern)) },
    { weight: 1, arbitrary: plain },
  );
}

function objectFor(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, propertySchema] of Object.entries(properties))
    record[name] = valueFor(propertySchema, depth + 1);
  const requiredKeys = Object.keys(properties).filter((name) => required.has(name));
  return fc.oneof(
    { weight: 6, arbitrary: fc.record(record, { requiredKeys }) },
    { weight: 1, arbitrary: fc.record(record, { requiredKeys: [] }) }, // a required field missing
    { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 4 }) },
  );
}

/** Percent-encodes a path segment; a lone surrogate becomes the invalid UTF-8 it would be on the wire. */
function encodePathSegment(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

function encodeValue(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}

function bearerFor(known: KnownValues): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    fc.constant({}),
    fc.constant({ authorization: `Bearer ${known.loginJwt}` }),
    fc.constant({ authorization: `Bearer ${known.adminKey}` }),
    fc.constant({
      authorization: `Basic ${Buffer.from(`${known.clientId}:${known.clientSecret}`).toString('base64')}`,
    }),
    // A real token with its signature cut, a token of another algorithm, and plain junk.
    fc.constant({ authorization: `Bearer ${known.loginJwt.slice(0, known.loginJwt.lastIndexOf('.'))}.AAAA` }),
    fc.constant({ authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.' }),
    fc.string({ maxLength: 40 }).map((junk) => ({ authorization: junk })),
  );
}

function pathFor(operation: FuzzOperation): fc.Arbitrary<string> {
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  if (pathParams.length === 0) return fc.constant(operation.path);
  const values = pathParams.map((p) =>
    valueFor(p.schema).map((v) => encodePathSegment(encodeValue(v)) || 'x'),
  );
  return fc
    .tuple(...values)
    .map((encoded) =>
      pathParams.reduce((path, p, i) => path.replace(`{${p.name}}`, encoded[i]!), operation.path),
    );
}

function queryFor(operation: FuzzOperation): fc.Arbitrary<string> {
  const queryParams = operation.parameters.filter((p) => p.in === 'query');
  if (queryParams.length === 0) return fc.constant('');
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of queryParams) record[p.name] = valueFor(p.schema);
  return fc.record(record, { requiredKeys: [] }).map((values) => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(values)) search.append(name, encodeValue(value));
    const text = search.toString();
    return text ? `?${text}` : '';
  });
}

function payloadFor(
  operation: FuzzOperation,
): fc.Arbitrary<{ payload: string | undefined; type: string | undefined }> {
  if (operation.method === 'GET' || operation.method === 'DELETE') {
    return fc.constant({ payload: undefined, type: undefined });
  }
  const json = (value: unknown) => ({ payload: JSON.stringify(value) ?? 'null', type: 'application/json' });
  return fc.oneof(
    { weight: 10, arbitrary: valueFor(operation.body).map(json) },
    { weight: 1, arbitrary: fc.constant({ payload: undefined, type: undefined }) },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 60 }).map((s) => ({ payload: s, type: 'application/json' })),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => ({ payload: s, type: 'text/plain' })) },
    {
      weight: 1,
      arbitrary: valueFor(operation.body).map((v) => ({
        payload: new URLSearchParams(
          Object.entries(typeof v === 'object' && v !== null ? v : {}).map(([k, x]): [string, string] => [
            k,
            encodeValue(x),
          ]),
        ).toString(),
        type: 'application/x-www-form-urlencoded',
      })),
    },
  );
}

export function fuzzRequest(operations: FuzzOperation[], known: KnownValues): fc.Arbitrary<FuzzRequest> {
  return fc.constantFrom(...operations).chain((operation) =>
    fc
      .record({
        path: pathFor(operation),
        query: queryFor(operation),
        auth: bearerFor(known),
        body: payloadFor(operation),
      })
      .map(({ path, query, auth, body }) => ({
        method: operation.method as FuzzRequest['method'],
        url: path + query,
        headers: { ...auth, ...(body.type ? { 'content-type': body.type } : {}) },
        payload: body.payload,
      })),
  );
}
