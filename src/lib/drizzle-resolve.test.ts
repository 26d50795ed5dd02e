// The resolve hook changes how fast drizzle-orm's and typebox's files and the project's
// packages are found, never which files load or how: the same URLs with the same formats as
// Node's own resolution.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const hook = new URL('./drizzle-resolve.ts', import.meta.url).href;

/** The drizzle-orm and typebox files (URL and format) that loading their entry points loads. */
function loaded(withHook: boolean): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ load(url, context, next) { const r = next(url, context); if (url.includes('/drizzle-orm/') || url.includes('/typebox/')) seen.push(url + ' ' + r.format); return r; } });
    ${withHook ? `await import(${JSON.stringify(hook)});` : ''}
    for (const m of ['drizzle-orm', 'drizzle-orm/pg-core', 'drizzle-orm/pglite', 'drizzle-orm/node-postgres', 'drizzle-orm/pglite/migrator', 'drizzle-orm/node-postgres/migrator',
      'typebox', 'typebox/value', 'typebox/compile', 'typebox/format']) await import(m);
    process.stdout.write(JSON.stringify(seen.sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' }));
}

test('with the hook, drizzle-orm and typebox load the same files with the same formats as with Node alone', () => {
  const plain = loaded(false);
  const hooked = loaded(true);
  assert.ok(plain.filter((f) => f.includes('/drizzle-orm/')).length > 100, `drizzle-orm's entry points load many files (${plain.length})`);
  assert.ok(plain.filter((f) => f.includes('/typebox/')).length > 100, `typebox's entry points load many files (${plain.length})`);
  assert.deepEqual(hooked, plain);
});

test('with the hook, a project file resolves package names as Node does, for import and for require, again and again', async () => {
  const names = ['drizzle-orm', 'drizzle-orm/pg-core', 'fastify', 'typebox/value', 'ajv', '@electric-sql/pglite'];
  const require = createRequire(import.meta.url);
  const resolveAll = () => names.flatMap((n) => [import.meta.resolve(n), require.resolve(n)]);
  const plain = resolveAll();
  assert.notEqual(plain[0], plain[1], 'drizzle-orm is a different file for import and for require');
  await import('./drizzle-resolve.ts'); // this test file is a project file: its resolutions go through the hook from here on
  assert.deepEqual(resolveAll(), plain, 'the first resolution of each name, through the hook');
  assert.deepEqual(resolveAll(), plain, 'the kept answers');
});
