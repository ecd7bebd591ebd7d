import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balanceAdexParams, balanceAdexQuery } from '../../src/http/routes/content/balanceAdex.js';
import { stringFieldsValidatorCompiler } from '../../src/http/stringFieldsValidator.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Fastify's own ajv compiler, with the options `buildApp` gives it: the code the route would run without ours.
const require = createRequire(import.meta.url);
const ajvCompiler = (
  require('@fastify/ajv-compiler') as () => (
    externalSchemas: Record<string, unknown>,
    options: unknown,
  ) => (route: { schema: unknown; method: string; url: string; httpPart: string }) => {
    (data: unknown): boolean;
    errors?: unknown[] | null;
  }
)()({}, { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true } });

type Validator = { (data: unknown): boolean; errors?: unknown[] | null };
const compileBoth = (schema: unknown, httpPart: string) => {
  const route = { schema, method: 'GET', url: '/v1/development-api/balance_adex/:slot_address', httpPart };
  return { ajv: ajvCompiler(route) as Validator, ours: stringFieldsValidatorCompiler(route) as Validator };
};
const firstError = (errors: unknown[] | null | undefined) => {
  if (!errors?.length) return null;
  const { instancePath, schemaPath, keyword, params, message } = errors[0] as Record<string, unknown>;
  return { instancePath, schemaPath, keyword, params, message };
};

const pair = '\u{1F600}'; // one code point, two UTF-16 units
const strings = [
  '',
  'a',
  '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  'x'.repeat(63),
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(128),
  'x'.repeat(129),
  pair.repeat(64), // 128 units, 64 code points: within 64
  pair.repeat(65),
  pair.repeat(128),
  pair.repeat(129),
  '\ud83d'.repeat(65), // lone high surrogates count one each
  '\ud83d' + 'x'.repeat(64),
  'ü'.repeat(64),
  'ü'.repeat(65),
];
const others = [null, undefined, 0, 1, true, [], ['a'], ['a', 'b'], {}, { a: 1 }];

/**
 * balance_adex checks its two string fields with a hand-written validator instead of ajv's generated code
 * (≈ 3,000 instructions of every request: docs/performance-content.md, round 15). It must pass and fail exactly
 * what ajv does, with the same first error, so the 400 a caller reads is unchanged.
 */
describe('stringFieldsValidatorCompiler answers as ajv does', () => {
  it.each([
    ['params', balanceAdexParams, 'slot_address'],
    ['querystring', balanceAdexQuery, 'cuid'],
  ] as const)('%s: the same verdict and first error over every input', (httpPart, schema, field) => {
    const { ajv, ours } = compileBoth(schema, httpPart);
    const inputs: unknown[] = [
      ...others,
      ...strings,
      ...[...strings, ...others].map((value) => ({ [field]: value })),
      ...strings.map((value) => ({ [field]: value, other: value, another: 5 })),
      Object.assign(Object.create(null) as object, { [field]: 'x'.repeat(200) }),
    ];
    let failures = 0;
    for (const input of inputs) {
      const verdict = ajv(input);
      expect(ours(input), JSON.stringify(input)).toBe(verdict);
      expect(firstError(ours.errors), JSON.stringify(input)).toEqual(firstError(ajv.errors));
      if (!verdict) failures++;
    }
    // The corpus reaches every kind of error: not an object, a missing or non-string field, too long.
    expect(failures).toBeGreaterThan(20);
  });

  it('names the required fields in the order of `required`, as ajv does, whatever the properties’ order', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string', maxLength: 3 } },
      required: ['b', 'a'],
    };
    const { ajv, ours } = compileBoth(schema, 'querystring');
    for (const input of [
      {},
      { a: 'x' },
      { b: 'x' },
      { a: 5, b: 'xxxx' },
      { a: 'x', b: 'xxxx' },
      { a: 'x', b: 'x' },
    ]) {
      expect(ours(input), JSON.stringify(input)).toBe(ajv(input));
      expect(firstError(ours.errors), JSON.stringify(input)).toEqual(firstError(ajv.errors));
    }
    expect(firstError(ours.errors)).toBeNull();
    ours({});
    expect(firstError(ours.errors)).toMatchObject({ params: { missingProperty: 'b' } });
  });

  it('refuses a schema it does not check in full when the route is added', () => {
    const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpPart: 'querystring' });
    expect(() =>
      stringFieldsValidatorCompiler(
        route({ type: 'object', properties: { a: { type: 'string', pattern: '^x$' } } }),
      ),
    ).toThrow(/pattern/);
    expect(() =>
      stringFieldsValidatorCompiler(route({ type: 'object', properties: { a: { type: 'integer' } } })),
    ).toThrow(/not a string/);
    expect(() =>
      stringFieldsValidatorCompiler(route({ type: 'object', properties: {}, additionalProperties: false })),
    ).toThrow(/additionalProperties/);
    expect(() =>
      stringFieldsValidatorCompiler(route({ type: 'object', properties: {}, required: ['a'] })),
    ).toThrow(/required a is not a property/);
  });
});

describe('balance_adex refuses bad fields with the error shape of decisions §2', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('a slot address over 64 characters and a repeated cuid get a 400 naming the field', async () => {
    const long = await fetch(`${server.url}/v1/development-api/balance_adex/0x${'a'.repeat(63)}?cuid=game`);
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual({
      success: false,
      error: 'invalid_request',
      message: 'slot_address must NOT have more than 64 characters',
      field: 'slot_address',
    });
    const twice = await fetch(
      `${server.url}/v1/development-api/balance_adex/0x5FbDB2315678afecb367f032d93F642f64180aa3?cuid=a&cuid=b`,
    );
    expect(twice.status).toBe(400);
    expect(await twice.json()).toEqual({
      success: false,
      error: 'invalid_request',
      message: 'cuid must be string',
      field: 'cuid',
    });
    const unknown = await fetch(
      `${server.url}/v1/development-api/balance_adex/0x5FbDB2315678afecb367f032d93F642f64180aa3?cuid=${'c'.repeat(128)}`,
    );
    expect(unknown.status).toBe(404);
  });
});
