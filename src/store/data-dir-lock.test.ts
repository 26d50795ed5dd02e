// The data dir lock: one holder at a time, in this process or another; the lock of a process
// killed with kill -9 is free at once and its record says who it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLockedError, lockDataDir } from './data-dir-lock.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'gantry-lock-'));
}

test('a second lock on a data dir is refused, naming the holder; a clean release leaves nothing to take over', (t) => {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const lock = lockDataDir(dir, 'serve');
  assert.equal(lock.takenOverFrom, undefined);
  assert.throws(() => lockDataDir(dir, 'migrate'), (e: DataDirLockedError) => {
    assert.ok(e instanceof DataDirLockedError);
    assert.equal(e.holder?.pid, process.pid);
    assert.equal(e.holder?.command, 'serve');
    assert.match(e.message, new RegExp(`${dir}.*pid ${process.pid}\\b`));
    return true;
  });
  lock.release();
  lock.release(); // twice is harmless
  const again = lockDataDir(dir, 'migrate');
  assert.equal(again.takenOverFrom, undefined, 'released cleanly: no record left');
  again.release();
});

test('the lock of a process killed with kill -9 is taken over, and says whose it was', async (t) => {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const holder = spawn(process.execPath, ['--input-type=module', '-e', `
    const { lockDataDir } = await import(${JSON.stringify(new URL('./data-dir-lock.ts', import.meta.url).href)});
    lockDataDir(${JSON.stringify(dir)}, 'serve');
    console.log('locked');
    setInterval(() => {}, 60_000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => holder.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on('data', (d) => { if (String(d).includes('locked')) resolve(); });
    holder.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  assert.throws(() => lockDataDir(dir, 'serve'), (e: DataDirLockedError) => e.holder?.pid === holder.pid);
  const exited = new Promise((r) => holder.once('exit', r));
  holder.kill('SIGKILL');
  await exited;
  const lock = lockDataDir(dir, 'serve');
  assert.equal(lock.takenOverFrom?.pid, holder.pid);
  assert.equal(lock.takenOverFrom?.command, 'serve');
  lock.release();
});
