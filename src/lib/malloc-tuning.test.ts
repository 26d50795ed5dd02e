// When `gantry serve` re-executes itself with glibc's allocator and V8's heap tuned, and when it
// must not. (That a real server does, same pid, is asserted in src/main.process.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MALLOC_VARIABLE, missingV8Flags, V8_FLAGS, wantsMallocReexec } from './malloc-tuning.ts';

const tuned = { [MALLOC_VARIABLE]: '32768' };

test('only the server on Linux, only when something is left to set, never under a debugger', () => {
  assert.equal(wantsMallocReexec('serve', {}, 'linux', []), true);
  assert.equal(wantsMallocReexec('serve', {}, 'linux', ['--cpu-prof']), true, 'other flags are carried over');
  assert.equal(wantsMallocReexec('admin', {}, 'linux', []), false, 'short commands are not worth a second start');
  assert.equal(wantsMallocReexec('migrate', {}, 'linux', []), false);
  assert.equal(wantsMallocReexec('serve', tuned, 'linux', [...V8_FLAGS]), false, 'already re-executed: once only');
  assert.equal(wantsMallocReexec('serve', { [MALLOC_VARIABLE]: '131072' }, 'linux', [...V8_FLAGS]), false, 'the operator chose the threshold');
  assert.equal(wantsMallocReexec('serve', { [MALLOC_VARIABLE]: '131072' }, 'linux', []), true, 'the flags are still to be set');
  assert.equal(wantsMallocReexec('serve', { ...tuned, NODE_OPTIONS: '--max-semi-space-size=64 --heap-growing-percent=100' }, 'linux', ['--wasm-tiering-budget=1000']), false, 'the operator chose the flags');
  assert.equal(wantsMallocReexec('serve', {}, 'darwin', []), false);
  assert.equal(wantsMallocReexec('serve', {}, 'linux', ['--inspect=9229']), false);
  assert.equal(wantsMallocReexec('serve', {}, 'linux', ['--inspect-brk']), false);
});

test('a V8 flag the operator gave, by name (any value, either spelling), is not added', () => {
  assert.deepEqual(missingV8Flags([], undefined), [...V8_FLAGS]);
  assert.deepEqual(missingV8Flags(['--max-semi-space-size=64'], undefined), ['--heap-growing-percent=30', '--wasm-tiering-budget=130000000']);
  assert.deepEqual(missingV8Flags([], '--max_semi_space_size=8'), ['--heap-growing-percent=30', '--wasm-tiering-budget=130000000']);
  assert.deepEqual(missingV8Flags(['--heap-growing-percent=20', '--wasm_tiering_budget=1000'], '--max-semi-space-size=32'), []);
});
