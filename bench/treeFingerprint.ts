import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * A digest of a git working tree as the benchmarks run it from its sources: its commit, its changes against
 * that commit, and its untracked files with their contents. `exclude` (a directory inside the tree, such as
 * the results directory the runs write into) is left out. The regression guard takes it before and after its
 * rounds: a tree edited or committed to meanwhile has measured two codes.
 */
export function treeFingerprint(root: string, exclude?: string): string {
  const relative = exclude === undefined ? undefined : path.relative(root, path.resolve(exclude));
  const inside =
    relative !== undefined && relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  const pathspec = inside ? ['--', '.', `:(exclude)${relative}`] : [];
  const hash = createHash('sha256');
  hash.update(run(root, ['rev-parse', 'HEAD']));
  hash.update(run(root, ['diff', 'HEAD', '--binary', ...pathspec]));
  const untracked = run(root, ['ls-files', '--others', '--exclude-standard', '-z', ...pathspec])
    .toString('utf8')
    .split('\0')
    .filter(Boolean);
  if (untracked.length > 0) hash.update(run(root, ['hash-object', '--', ...untracked]));
  hash.update(untracked.join('\0'));
  return hash.digest('hex');
}

function run(root: string, args: string[]): Buffer {
  // Diffs of a large change exceed spawnSync's 1-MB default.
  const result = spawnSync('git', args, { cwd: root, maxBuffer: 1 << 30 });
  if (result.status !== 0) {
    throw new Error(`git ${args.join(' ')}: ${result.error?.message ?? result.stderr.toString().trim()}`);
  }
  return result.stdout;
}
