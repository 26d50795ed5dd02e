// When `gantry serve` re-executes itself with glibc's allocator tuned, and when it must not.
// (That a real server does, same pid, is asserted in src/main.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MALLOC_VARIABLE, wantsMallocReexec } from './malloc-tuning.ts';

test('only the server on Linux, only when the operator set nothing, never under a debugger', () => {
  assert.equal(wantsMallocReexec('serve', {}, 'linux', []), true);
  assert.equal(wantsMallocReexec('serve', {}, 'linux', ['--cpu-prof']), true, 'other flags are carried over');
  assert.equal(wantsMallocReexec('admin', {}, 'linux', []), false, 'short commands are not worth a second start');
  assert.equal(wantsMallocReexec('migrate', {}, 'linux', []), false);
  assert.equal(wantsMallocReexec('serve', { [MALLOC_VARIABLE]: '131072' }, 'linux', []), false, 'the operator chose');
  assert.equal(wantsMallocReexec('serve', { [MALLOC_VARIABLE]: '32768' }, 'linux', []), false, 'already re-executed: once only');
  assert.equal(wantsMallocReexec('serve', {}, 'darwin', []), false);
  assert.equal(wantsMallocReexec('serve', {}, 'linux', ['--inspect=9229']), false);
  assert.equal(wantsMallocReexec('serve', {}, 'linux', ['--inspect-brk']), false);
});
