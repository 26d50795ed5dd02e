// Runs in a process of its own (test/runner): it counts the embedded stores this process starts, and other files would have started some.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compiledPgliteModule, pgliteModuleSettled } from './pglite-artifacts.ts';

test('the first store compiles PGlite itself (a serving process is left as it was); from the second on, every thread is handed one module', async () => {
  assert.equal(compiledPgliteModule(), undefined);
  await pgliteModuleSettled();
  const m = compiledPgliteModule();
  assert.ok(m instanceof (globalThis as unknown as { WebAssembly: { Module: new () => object } }).WebAssembly.Module);
  assert.equal(compiledPgliteModule(), m);
});
