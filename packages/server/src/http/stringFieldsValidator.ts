import type { FastifySchemaCompiler } from 'fastify';

/** One failed check, in ajv's words: what Fastify's error formatter and `toAppError` read. */
export interface ValidationIssue {
  instancePath: string;
  schemaPath: string;
  keyword: 'type' | 'required' | 'maxLength';
  params: Record<string, unknown>;
  message: string;
}

interface StringField {
  name: string;
  required: boolean;
  /** Infinity without a `maxLength`. */
  maxLength: number;
  /** The field's JSON pointer, as ajv names it in `instancePath`. */
  path: string;
}

/** Keywords a string field may carry: `maxLength` is checked, the others only document. */
const STRING_KEYWORDS = new Set(['type', 'maxLength', 'description', 'title', 'examples']);
const OBJECT_KEYWORDS = new Set(['type', 'properties', 'required', 'description', 'title']);

/**
 * The validator of a request part (params, query string) whose schema is an object of string fields, each
 * with at most a `maxLength`: the same pass or fail and the same first error as the ajv code Fastify would
 * generate from the schema (Fastify's ajv stops at the first error; a test compares the two over many inputs),
 * without it. ajv checks a length by counting code points one character at a time (`ucs2length`, ≈ 1,900
 * instructions for a 42-character slot address: docs/performance-content.md, round 13); a string whose UTF-16
 * length is within the limit is within it in code points too, so only a longer one is counted.
 *
 * For a route's `validatorCompiler`; a schema of any other shape is refused when the route is added.
 */
export const stringFieldsValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, url, httpPart }) => {
  const required = (schema as { required?: string[] }).required ?? [];
  const fields = stringFieldsOf(schema as Record<string, unknown>, `${url} ${httpPart ?? ''}`, required);
  const validate = (data: unknown): boolean => {
    if (passes(data, fields)) {
      validate.errors = null;
      return true;
    }
    // Only a refused request pays for finding and describing its first error.
    const issue = firstIssue(data, fields, required);
    validate.errors = issue ? [issue] : null;
    return issue === undefined;
  };
  validate.errors = null as ValidationIssue[] | null;
  return validate;
};

function stringFieldsOf(schema: Record<string, unknown>, where: string, required: string[]): StringField[] {
  const unsupported = (why: string) => new Error(`stringFieldsValidatorCompiler (${where}): ${why}`);
  if (schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null)
    throw unsupported('the schema is not an object of properties');
  for (const key of Object.keys(schema))
    if (!OBJECT_KEYWORDS.has(key)) throw unsupported(`the object keyword ${key} is not checked here`);
  const properties = schema.properties as Record<string, Record<string, unknown>>;
  for (const name of required)
    if (!Object.hasOwn(properties, name)) throw unsupported(`the required ${name} is not a property`);
  return Object.entries(properties).map(([name, field]) => {
    if (field.type !== 'string') throw unsupported(`${name} is not a string`);
    for (const key of Object.keys(field))
      if (!STRING_KEYWORDS.has(key)) throw unsupported(`${name}'s keyword ${key} is not checked here`);
    return {
      name,
      required: required.includes(name),
      maxLength: typeof field.maxLength === 'number' ? field.maxLength : Infinity,
      path: `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`,
    };
  });
}

/** Whether every field is valid, checked the cheap way: a string within its length in UTF-16 units passes. */
function passes(data: unknown, fields: StringField[]): boolean {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const record = data as Record<string, unknown>;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    const value = record[field.name];
    if (value === undefined) {
      if (field.required) return false;
    } else if (typeof value !== 'string' || value.length > field.maxLength) return false;
  }
  return true;
}

/** ajv's first error for `data`, or undefined when it passes (a string longer in UTF-16 units than in code points). */
function firstIssue(data: unknown, fields: StringField[], required: string[]): ValidationIssue | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return {
      instancePath: '',
      schemaPath: '#/type',
      keyword: 'type',
      params: { type: 'object' },
      message: 'must be object',
    };
  const record = data as Record<string, unknown>;
  // ajv checks the required fields first (in the order of `required`), then each field present.
  for (const name of required)
    if (record[name] === undefined)
      return {
        instancePath: '',
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: name },
        message: `must have required property '${name}'`,
      };
  for (const { name, maxLength, path } of fields) {
    const value = record[name];
    if (value === undefined) continue;
    if (typeof value !== 'string')
      return {
        instancePath: path,
        schemaPath: `#/properties/${name}/type`,
        keyword: 'type',
        params: { type: 'string' },
        message: 'must be string',
      };
    if (value.length > maxLength && codePoints(value) > maxLength)
      return {
        instancePath: path,
        schemaPath: `#/properties/${name}/maxLength`,
        keyword: 'maxLength',
        params: { limit: maxLength },
        message: `must NOT have more than ${maxLength} characters`,
      };
  }
  return undefined;
}

/** Code points, as ajv's `ucs2length` counts them: a high surrogate followed by a low one is one. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    count++;
    const unit = text.charCodeAt(i);
    if (
      unit >= 0xd800 &&
      unit <= 0xdbff &&
      i + 1 < text.length &&
      (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00
    )
      i++;
  }
  return count;
}
