import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packages = fileURLToPath(new URL('../../../', import.meta.url));

/** The packages the server's `dist/` is built from (the server imports `@dauth/contracts`' `dist/`). */
const BUILT_FROM = ['server', 'contracts'];

let built: boolean | undefined;
let warned = false;

/**
 * Whether every `src/**.ts` of the server and the contracts has its `dist/**.js` and none is newer
 * than it: `npm run build` (which `.ci/run` does before `npm test`) ran after the last edit. A fresh
 * clone without a build, or a source edited since, answers false.
 */
export function distIsCurrent(): boolean {
  if (built !== undefined) return built;
  built = BUILT_FROM.every((name) => {
    const src = path.join(packages, name, 'src');
    const dist = path.join(packages, name, 'dist');
    const files = fs.readdirSync(src, { recursive: true, encoding: 'utf8' });
    return files.every((file) => {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts')) return true;
      try {
        const output = path.join(dist, file.replace(/\.ts$/, '.js'));
        return fs.statSync(output).mtimeMs >= fs.statSync(path.join(src, file)).mtimeMs;
      } catch {
        return false;
      }
    });
  });
  return built;
}

/**
 * The `node` arguments that run the server's entry point `name` (`main`: the service as `npm start`
 * runs it): its built `dist/<name>.js` when the build is current, else `src/<name>.ts` through tsx.
 * The built entry starts with a second less CPU (tsx transforms every module it loads; on a fresh
 * machine the first start transforms the whole tree), and the code is the same: tsc only strips types.
 * `DAUTH_TEST_FROM_SOURCE=1` forces the sources.
 */
export function serviceEntry(name = 'main'): string[] {
  const server = path.join(packages, 'server');
  if (process.env.DAUTH_TEST_FROM_SOURCE !== '1' && distIsCurrent()) {
    return [path.join(server, 'dist', `${name}.js`)];
  }
  if (!warned && process.env.DAUTH_TEST_FROM_SOURCE !== '1') {
    warned = true;
    console.warn(
      'dist/ is missing or older than src/: the service runs through tsx (npm run build first is faster)',
    );
  }
  return ['--import', 'tsx', path.join(server, 'src', `${name}.ts`)];
}
