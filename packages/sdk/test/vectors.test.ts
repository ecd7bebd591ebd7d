import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize } from '../src/api/authorize.js';
import {
  AuthorizeError,
  CallbackRejectedError,
  CallbackTimeoutError,
  EnvelopeError,
  ExpiredTokenError,
  MalformedResponseError,
  MissingJwtError,
  parseAuthorizeCallback,
  readSlotEnvelope,
  ShutdownError,
  SlotId,
  toHttpStatus,
} from '../src/index.js';
import type { SlotInfo } from '../src/index.js';
import { serve } from './support/appServer.js';
import type { RunningServer } from './support/appServer.js';
import { vectors } from './support/vectors.js';

/** A SlotInfo in the vectors' plain form: the id as its digits plus its JSON kind. */
function plain(slot: SlotInfo): Record<string, unknown> {
  const { id, ...rest } = slot;
  return { id: id.value, id_kind: id.kind, ...rest };
}

describe('get_token envelopes (shared vectors)', () => {
  for (const vector of vectors.envelopes) {
    it(vector.name, () => {
      const read = (): SlotInfo => readSlotEnvelope(vector.body, vector.http_status);
      const { expect: expected } = vector;
      if (expected.outcome === 'slot') {
        expect(plain(read())).toEqual(expected.slot);
      } else if (expected.outcome === 'envelope_error') {
        expect(read).toThrow(EnvelopeError);
        try {
          read();
        } catch (error) {
          expect((error as EnvelopeError).code).toBe(expected.code);
        }
      } else {
        expect(read).toThrow(MalformedResponseError);
      }
    });
  }

  it('the 19-digit id survives a round trip through the SDK', () => {
    const [number, string] = ['1234567890123456789', '"1234567890123456789"'].map((id) =>
      readSlotEnvelope(`{"code":1,"message":"success","data":[{"id":${id},"access_token":"a"}]}`, 200),
    );
    expect(number?.id.toRawJson()).toBe('1234567890123456789');
    expect(string?.id.toRawJson()).toBe('"1234567890123456789"');
    const again = readSlotEnvelope(
      `{"code":1,"message":"success","data":[{"id":${number?.id.toRawJson()},"access_token":"a"}]}`,
      200,
    );
    expect(again.id.equals(number!.id)).toBe(true);
    expect(again.id.toBigInt()).toBe(1234567890123456789n);
  });
});

describe('authorize answers (shared vectors)', () => {
  let current = { status: 200, body: '' };
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve((_request, response) => {
      response.writeHead(current.status, { 'content-type': 'application/json' }).end(current.body);
    });
  });
  afterAll(() => server.close());

  const parameters = { clientId: 'c', redirectUri: 'http://127.0.0.1:1/cb', state: 's', jwt: 'j' };
  const errorClass = { expired_token: ExpiredTokenError, authorize_error: AuthorizeError } as const;

  for (const vector of vectors.authorize) {
    it(vector.name, async () => {
      current = { status: vector.http_status, body: vector.body };
      const run = authorize({ baseUrl: server.url, httpClient: fetch, requestTimeout: 5_000 }, parameters);
      if (vector.expect === 'accepted') await expect(run).resolves.toBeUndefined();
      else await expect(run).rejects.toBeInstanceOf(errorClass[vector.expect]);
    });
  }
});

describe('callback bodies (shared vectors)', () => {
  for (const vector of vectors.callbacks) {
    it(vector.name, () => {
      expect(parseAuthorizeCallback(JSON.parse(vector.body))).toEqual(vector.expect ?? undefined);
    });
  }
});

describe('error mapping table (shared vectors), row by row', () => {
  const examples: Record<string, () => Error> = {
    expired_token: () => new ExpiredTokenError(),
    callback_timeout: () => new CallbackTimeoutError(),
    authorize_error: () =>
      new AuthorizeError('redirect_uri mismatch', { responseStatus: 401, envelopeCode: 401 }),
    callback_rejected: () => new CallbackRejectedError(),
    shutdown: () => new ShutdownError(),
    missing_jwt: () => new MissingJwtError(),
    envelope_error: () => new EnvelopeError('get_token', 510, 'code expired'),
    malformed_response: () => new MalformedResponseError('envelope code is not a number', 200),
    other: () => new Error('boom'),
  };

  for (const row of vectors.error_mapping.filter((candidate) => candidate.only === undefined)) {
    it(`${row.error} → ${row.status}`, () => {
      const make = examples[row.error];
      expect(make, `no example for ${row.error}`).toBeDefined();
      const error = make!();
      expect(toHttpStatus(error)).toBe(row.status);
      if (row.message) expect(error.message.startsWith(row.message)).toBe(true);
    });
  }

  it('maps values that are not errors to 500', () => {
    expect(toHttpStatus('shutdown')).toBe(500);
    expect(toHttpStatus(undefined)).toBe(500);
  });

  it('builds exact slot ids only from exact values', () => {
    expect(SlotId.fromJson(1234567890123456789n)?.value).toBe('1234567890123456789');
    expect(SlotId.fromJson(2 ** 60)).toBeUndefined();
    expect(SlotId.fromJson(-1)).toBeUndefined();
    expect(SlotId.fromJson('12a')).toBeUndefined();
  });
});
