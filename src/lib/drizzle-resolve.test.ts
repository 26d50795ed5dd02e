// The drizzle-orm resolve hook changes how fast drizzle-orm's files are found, never which
// files load or how: the same URLs with the same formats as Node's own resolution.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const hook = new URL('./drizzle-resolve.ts', import.meta.url).href;

/** The drizzle-orm files (URL and format) that loading the store's drizzle entry points loads. */
function loaded(withHook: boolean): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ load(url, context, next) { const r = next(url, context); if (url.includes('/drizzle-orm/')) seen.push(url + ' ' + r.format); return r; } });
    ${withHook ? `await import(${JSON.stringify(hook)});` : ''}
    for (const m of ['drizzle-orm', 'drizzle-orm/pg-core', 'drizzle-orm/pglite', 'drizzle-orm/node-postgres', 'drizzle-orm/pglite/migrator', 'drizzle-orm/node-postgres/migrator']) await import(m);
    process.stdout.write(JSON.stringify(seen.sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }));
}

test('with the hook, drizzle-orm loads the same files with the same formats as with Node alone', () => {
  const plain = loaded(false);
  const hooked = loaded(true);
  assert.ok(plain.length > 100, `drizzle-orm's entry points load many files (${plain.length})`);
  assert.deepEqual(hooked, plain);
});
