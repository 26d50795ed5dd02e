// SecretBox: AES-256-GCM with a fresh nonce per seal, tamper-evident; the key file is made
// once with mode 0600 (and narrowed to 0600 if someone widened it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox, loadSecretKey } from './secret-box.ts';

test('seal and open: a fresh nonce each time, tampering and another key are refused', () => {
  const box = new SecretBox(randomBytes(32));
  const a = box.seal('hunter2');
  const b = box.seal('hunter2');
  assert.notEqual(a, b);
  assert.equal(box.open(a), 'hunter2');
  assert.equal(Buffer.from(a, 'base64').length, 12 + 16 + 'hunter2'.length);
  const tampered = Buffer.from(a, 'base64');
  tampered[tampered.length - 1]! ^= 1;
  assert.throws(() => box.open(tampered.toString('base64')));
  assert.throws(() => new SecretBox(randomBytes(32)).open(a));
  assert.throws(() => new SecretBox(randomBytes(16)), /32 bytes/);
});

test('the key file is made once, mode 0600, and read back the same; a configured key wins', { skip: process.platform === 'win32' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-key-'));
  try {
    const data = join(dir, 'data');
    const k1 = loadSecretKey(undefined, data);
    assert.equal(k1.length, 32);
    assert.equal(statSync(join(data, 'secret.key')).mode & 0o777, 0o600);
    assert.deepEqual(loadSecretKey(undefined, data), k1);
    chmodSync(join(data, 'secret.key'), 0o644);
    assert.deepEqual(loadSecretKey(undefined, data), k1);
    assert.equal(statSync(join(data, 'secret.key')).mode & 0o777, 0o600, 'a widened key file is narrowed again');
    const configured = randomBytes(32);
    assert.deepEqual(loadSecretKey(configured.toString('base64'), data), configured);
    assert.equal(readFileSync(join(data, 'secret.key'), 'utf8').trim(), k1.toString('base64'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
