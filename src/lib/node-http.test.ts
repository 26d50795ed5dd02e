// No module of the server imports node:http as an ES module (lib/node-http.ts says why): the
// app's modules, and the database thread's, load without Node's bundled undici.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';

function loadsBundledUndici(modules: string[]): boolean {
  const imports = modules.map((m) => `await import(${JSON.stringify(new URL(m, import.meta.url).href)});`).join(' ');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', `${imports} process.stdout.write(String(process.moduleLoadList.some((m) => m.includes('deps/undici'))));`], { encoding: 'utf8' });
  return out === 'true';
}

test("the server's modules load without Node's bundled undici", () => {
  assert.equal(loadsBundledUndici(['./node-http.ts']), false);
  assert.equal(loadsBundledUndici(['../cli/commands.ts', '../app.ts', '../drivers/index.ts']), false, 'the main thread');
  assert.equal(loadsBundledUndici(['../store/schema.ts', '../domain/usage/procedures.ts']), false, "the database thread's own modules");
  // what the test would see if one did
  assert.equal(loadsBundledUndici(['node:http']), true);
});
