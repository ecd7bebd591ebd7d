import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The request fields hooks and routes set (auth.ts, auditRecorder.ts, tracing.ts, cookies.ts): undefined until set. */
type FieldName = 'auth' | 'auditUser' | 'auditAnswer' | 'tracing' | 'parsedCookies';
type Fields = { [Name in FieldName]: FastifyRequest[Name] };

const kFields = Symbol('dauth.requestFields');
type Holder = FastifyRequest & { [kFields]?: Fields };

/** One object literal, so every request's fields share one hidden class. */
const emptyFields = (): Fields => ({
  auth: undefined,
  auditUser: undefined,
  auditAnswer: undefined,
  tracing: undefined,
  parsedCookies: undefined,
});

const fieldsOf = (request: FastifyRequest): Fields | undefined => (request as Holder)[kFields];
const writableFieldsOf = (request: FastifyRequest): Fields =>
  ((request as Holder)[kFields] ??= emptyFields());

/**
 * Declares the request fields as accessors on the root's Request prototype (every scope's requests inherit
 * them), kept in one object a request gets when the first of them is set; a request that sets none (a token
 * validation, a balance read, `/healthz`) gets nothing.
 *
 * `decorateRequest(name, undefined)` copied each field onto every request in Fastify's Request constructor, a
 * keyed store per field whose site saw five names and so ran V8's megamorphic stub: ≈ 1,100 instructions on
 * every request, set or not (docs/performance-http.md, round 15). Fields added where they are set instead would
 * give a request a hidden class per combination and order of the fields it set; here a request has one of two
 * classes, with or without the holder.
 *
 * Each accessor is a function literal of its own, so each reads and writes its one property name (a single
 * function for every name would see five and be megamorphic again).
 */
export function declareRequestFields(app: FastifyInstance): void {
  app.decorateRequest('auth', {
    getter(this: FastifyRequest) {
      return fieldsOf(this)?.auth;
    },
    setter(this: FastifyRequest, value: Fields['auth']) {
      writableFieldsOf(this).auth = value;
    },
  });
  app.decorateRequest('auditUser', {
    getter(this: FastifyRequest) {
      return fieldsOf(this)?.auditUser;
    },
    setter(this: FastifyRequest, value: Fields['auditUser']) {
      writableFieldsOf(this).auditUser = value;
    },
  });
  app.decorateRequest('auditAnswer', {
    getter(this: FastifyRequest) {
      return fieldsOf(this)?.auditAnswer;
    },
    setter(this: FastifyRequest, value: Fields['auditAnswer']) {
      writableFieldsOf(this).auditAnswer = value;
    },
  });
  app.decorateRequest('tracing', {
    getter(this: FastifyRequest) {
      return fieldsOf(this)?.tracing;
    },
    setter(this: FastifyRequest, value: Fields['tracing']) {
      writableFieldsOf(this).tracing = value;
    },
  });
  app.decorateRequest('parsedCookies', {
    getter(this: FastifyRequest) {
      return fieldsOf(this)?.parsedCookies;
    },
    setter(this: FastifyRequest, value: Fields['parsedCookies']) {
      writableFieldsOf(this).parsedCookies = value;
    },
  });
}
