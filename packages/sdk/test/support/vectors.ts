import { readFileSync } from 'node:fs';

/** The shared test vectors of the three SDKs (sdk/vectors/vectors.json). */
export interface Vectors {
  envelopes: {
    name: string;
    http_status: number;
    body: string;
    expect:
      | {
          outcome: 'slot';
          slot: Record<string, string | number> & { id: string; id_kind: 'number' | 'string' };
        }
      | { outcome: 'envelope_error'; code: number }
      | { outcome: 'malformed' };
  }[];
  authorize: {
    name: string;
    http_status: number;
    body: string;
    expect: 'accepted' | 'expired_token' | 'authorize_error';
  }[];
  callbacks: {
    name: string;
    body: string;
    expect: { state: string; success: boolean; code?: string } | null;
  }[];
  error_mapping: { error: string; message?: string; status: number; only?: string }[];
}

export const vectors = JSON.parse(
  readFileSync(new URL('../../../../sdk/vectors/vectors.json', import.meta.url), 'utf8'),
) as Vectors;
