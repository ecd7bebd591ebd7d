/**
 * The regression guard's check that the working tree it measured stayed the same code from its first round
 * to its last (bench/treeFingerprint.ts), on a real git repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeFingerprint } from '../../../../bench/treeFingerprint.js';

describe('the working tree fingerprint of the regression guard', () => {
  let root: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: root });
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-fingerprint-'));
    git('init', '--quiet');
    write('src/a.ts', 'export const a = 1;\n');
    git('add', '.');
    git('commit', '--quiet', '-m', 'first');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('changes with an edit of the same size, a new untracked file, its contents, and a commit', () => {
    const results = path.join(root, 'results');
    const clean = treeFingerprint(root, results);
    expect(treeFingerprint(root, results)).toBe(clean);

    write('src/a.ts', 'export const a = 2;\n');
    const edited = treeFingerprint(root, results);
    expect(edited).not.toBe(clean);

    write('src/b.ts', 'export const b = 1;\n');
    const untracked = treeFingerprint(root, results);
    expect(untracked).not.toBe(edited);
    write('src/b.ts', 'export const b = 2;\n');
    const untrackedEdited = treeFingerprint(root, results);
    expect(untrackedEdited).not.toBe(untracked);

    git('add', '.');
    git('commit', '--quiet', '-m', 'second');
    // The same files as just before, now committed: the commit differs.
    expect(treeFingerprint(root, results)).not.toBe(untrackedEdited);
  });

  it('leaves out the results directory the runs write into', () => {
    const results = path.join(root, 'results');
    const before = treeFingerprint(root, results);
    write('results/validate.tree.1.json', '{"rps": 1}\n');
    expect(treeFingerprint(root, results)).toBe(before);
    // Excluding a directory elsewhere, or none, the same file counts.
    expect(treeFingerprint(root, path.join(os.tmpdir(), 'outside'))).not.toBe(before);
    expect(treeFingerprint(root)).not.toBe(before);
  });
});
