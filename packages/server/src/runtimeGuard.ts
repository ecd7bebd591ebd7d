/**
 * The oldest Node.js dauth runs on (`engines` in package.json: `>=22.15`, docs/runtime.md). Older ones
 * get as far as loading better-sqlite3, whose Node-API 10 build then crashes the process with a bare
 * "Segmentation fault" — so the entry points import this module first and stop with a sentence instead.
 */
export const minimumNode = { major: 22, minor: 15 } as const;

/** Why `version` (`process.versions.node`, e.g. `20.20.2`) cannot run dauth, or undefined when it can. */
export function unsupportedNodeReason(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > minimumNode.major || (major === minimumNode.major && minor >= minimumNode.minor))
    return undefined;
  return (
    `dauth needs Node.js ${minimumNode.major}.${minimumNode.minor} or newer (24 LTS is the reference); ` +
    `this is Node.js ${version}. Install Node 24 (\`.nvmrc\` says 24; docs/runtime.md) and run it again.`
  );
}

const reason = unsupportedNodeReason(process.versions.node);
if (reason) {
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}
