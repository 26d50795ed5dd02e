// Where a thread's compile cache goes (lib/compile-cache.ts): ours beside the install by
// default; an operator's NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPILE_CACHE_DIR, compileCacheEnv } from './compile-cache.ts';

const script = `
  const { useCompileCache } = await import(${JSON.stringify(new URL('./compile-cache.ts', import.meta.url).href)});
  const { getCompileCacheDir } = await import('node:module');
  useCompileCache();
  process.stdout.write(JSON.stringify(getCompileCacheDir() ?? null));`;

function cacheDir(env: Record<string, string>): string | null {
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' }));
}

test('the compile cache is ours by default; an operator\'s NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE is kept', () => {
  const ours = cacheDir({});
  assert.ok(ours?.startsWith(COMPILE_CACHE_DIR), `${ours} is under ${COMPILE_CACHE_DIR}`);
  const theirs = mkdtempSync(join(tmpdir(), 'gantry-cc-'));
  try {
    assert.ok(cacheDir({ NODE_COMPILE_CACHE: theirs })?.startsWith(theirs), 'the operator\'s directory');
  } finally {
    rmSync(theirs, { recursive: true, force: true });
  }
  assert.equal(cacheDir({ NODE_DISABLE_COMPILE_CACHE: '1' }), null, 'off when the operator turns it off');
});

test('a re-execution names our cache in its environment, unless the operator chose one or turned it off', () => {
  assert.deepEqual(compileCacheEnv({}), { NODE_COMPILE_CACHE: COMPILE_CACHE_DIR });
  assert.deepEqual(compileCacheEnv({ NODE_COMPILE_CACHE: '/srv/cache' }), {});
  assert.deepEqual(compileCacheEnv({ NODE_DISABLE_COMPILE_CACHE: '1' }), {});
});
