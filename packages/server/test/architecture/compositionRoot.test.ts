import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

const indexPath = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../src/composition/index.ts',
);
const source = () => fs.readFileSync(indexPath, 'utf8');

/** The lines between `createServices`'s opening `{` and its closing `}` at the start of a line. */
function createServicesBody(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('export async function createServices('));
  expect(start).toBeGreaterThanOrEqual(0);
  const open = lines.findIndex((line, i) => i >= start && line.endsWith('{'));
  const end = lines.findIndex((line, i) => i > open && line === '}');
  return lines.slice(open + 1, end);
}

/** The members an interface of composition/index.ts declares (properties and methods), its own only. */
function members(text: string, name: string): string[] {
  const body = new RegExp(`^export interface ${name}(?: extends [^{]+)? \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(
    text,
  )?.[1];
  return [...(body ?? '').matchAll(/^ {2}(?:readonly )?(\w+)\??[(:]/gm)].map((m) => m[1]!);
}

/**
 * Issue 37: the composition root is a short list of domains in dependency order, each wired in its own
 * composition/<domain>.ts; a domain wired inline makes `createServices` long again.
 */
describe('the composition root (composition/index.ts)', () => {
  it('keeps createServices under 150 lines: the wiring lives in composition/<domain>.ts', () => {
    const body = createServicesBody(source());
    expect(body.length).toBeGreaterThan(20);
    expect(body.length).toBeLessThan(150);
  });

  describe('the object it returns', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
    }, 120_000);
    afterAll(() => server?.close());

    // The domains' results are spread into it: a lock, mailer, policy or store a domain returns for the others
    // must not ride along into the Services the routes are handed.
    it('holds exactly the members Services and Composition declare', () => {
      const text = source();
      const declared = [...members(text, 'Services'), ...members(text, 'Composition')].sort();
      expect(declared.length).toBeGreaterThan(40);
      expect(Object.keys(server.services).sort()).toEqual(declared);
    });
  });
});
