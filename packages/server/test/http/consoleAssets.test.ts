import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConsoleAssets } from '../../src/http/routes/console/index.js';

/** The console's file table: what `/console/assets/*` can ever serve (the rest is 404). */
describe('console file table', () => {
  function consoleDir(files: Record<string, string>): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dauth-console-'));
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
    return dir;
  }

  it('holds the compiled modules and the stylesheet, never build metadata, and the shell apart', () => {
    const dir = consoleDir({
      'static/index.html': '<!doctype html>',
      'static/console.css': 'body{}',
      'dist/main.js': 'export {}',
      'dist/pages/apps.js': 'export {}',
      'dist/vendor/uplot.js': 'export default {}',
      'dist/vendor/uplot.css': '.uplot{}',
      'dist/vendor/uqr.js': 'export {}',
      'dist/vendor/intl-messageformat.js': 'export {}',
      'dist/.tsbuildinfo': '{}',
      'dist/main.js.map': '{}',
      'src/main.ts': 'export {}',
    });
    const { shell, assets } = loadConsoleAssets(dir);
    expect(shell?.body.toString()).toBe('<!doctype html>');
    expect([...assets.keys()].sort()).toEqual([
      'console.css',
      'main.js',
      'pages/apps.js',
      'vendor/intl-messageformat.js',
      'vendor/uplot.css',
      'vendor/uplot.js',
      'vendor/uqr.js',
    ]);
    expect(assets.get('main.js')?.type).toBe('text/javascript; charset=utf-8');
    expect(assets.get('console.css')?.type).toBe('text/css; charset=utf-8');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has no shell until the compiled modules exist (the route then answers 503, not a page that cannot load)', () => {
    const dir = consoleDir({ 'static/index.html': '<!doctype html>', 'static/console.css': 'body{}' });
    expect(loadConsoleAssets(dir).shell).toBeUndefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('has no shell when the charting, QR or message library was not copied beside the modules (`tsc -b` without `npm run build`)', () => {
    const dir = consoleDir({ 'static/index.html': '<!doctype html>', 'dist/main.js': 'export {}' });
    expect(loadConsoleAssets(dir).shell).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'dist/uplot.js'), 'export default {}');
    expect(loadConsoleAssets(dir).shell).toBeUndefined();
    fs.mkdirSync(path.join(dir, 'dist/vendor'));
    fs.writeFileSync(path.join(dir, 'dist/vendor/uplot.js'), 'export default {}');
    expect(loadConsoleAssets(dir).shell).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'dist/vendor/uqr.js'), 'export {}');
    expect(loadConsoleAssets(dir).shell).toBeUndefined();
    fs.writeFileSync(path.join(dir, 'dist/vendor/intl-messageformat.js'), 'export {}');
    expect(loadConsoleAssets(dir).shell).toBeDefined();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
