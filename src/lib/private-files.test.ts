// Files and directories Gantry keeps secrets in are its user's alone, whatever the umask.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir, tightenTree, writePrivateFileAtomic, DataDirError } from './private-files.ts';

const mode = (p: string) => statSync(p).mode & 0o777;

function withUmask<T>(mask: number, fn: () => T): T {
  const previous = process.umask(mask);
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

test('a private file is written whole, 0600, with nothing left beside it', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-private-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'credentials.json');
  withUmask(0, () => writePrivateFileAtomic(path, 'one\n'));
  assert.equal(mode(path), 0o600);
  writeFileSync(path, 'old', { mode: 0o644 });
  chmodSync(path, 0o644);
  withUmask(0, () => writePrivateFileAtomic(path, 'two\n'));
  assert.equal(readFileSync(path, 'utf8'), 'two\n');
  assert.equal(mode(path), 0o600, 'a replaced file does not keep the old mode');
  assert.deepEqual(readdirSync(dir), ['credentials.json']);
});

test('the data dir is created 0700, an existing one is tightened, and so is what it holds', (t) => {
  const parent = mkdtempSync(join(tmpdir(), 'gantry-private-'));
  t.after(() => rmSync(parent, { recursive: true, force: true }));
  const fresh = join(parent, 'a', 'data');
  withUmask(0, () => ensurePrivateDir(fresh));
  assert.equal(mode(fresh), 0o700);
  const old = join(parent, 'old');
  mkdirSync(join(old, 'base'), { recursive: true });
  writeFileSync(join(old, 'base', '1'), 'x');
  chmodSync(join(old, 'base', '1'), 0o666);
  chmodSync(join(old, 'base'), 0o755);
  chmodSync(old, 0o755);
  ensurePrivateDir(old);
  assert.equal(mode(old), 0o700);
  tightenTree(old);
  assert.equal(mode(join(old, 'base')), 0o700);
  assert.equal(mode(join(old, 'base', '1')), 0o600);
  writeFileSync(join(parent, 'file'), 'x');
  assert.throws(() => ensurePrivateDir(join(parent, 'file')), (e: Error) => e instanceof DataDirError && e.message.includes(join(parent, 'file')));
});
