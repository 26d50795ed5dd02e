// Password hashes: scrypt at the documented parameters, in a format that names them, so a
// hash made with older parameters still verifies and is known to need remaking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dummyPasswordHash, hashPassword, needsRehash, SCRYPT_DEFAULTS, verifyPassword } from './passwords.ts';

test('a hash names scrypt and its parameters (N=2^15, r=8, p=1 by default), with a salt of its own', async () => {
  const a = await hashPassword('correct horse battery');
  const b = await hashPassword('correct horse battery');
  assert.match(a, /^\$scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.notEqual(a, b, 'a fresh salt each time');
  assert.equal(await verifyPassword(a, 'correct horse battery'), true);
  assert.equal(await verifyPassword(b, 'correct horse battery'), true);
  assert.equal(await verifyPassword(a, 'correct horse batterY'), false);
  assert.equal(needsRehash(a), false);
});

test('a hash made with other parameters verifies and needs remaking; an unknown format never verifies', async () => {
  const old = await hashPassword('pw-12345678', { ln: 12, r: 8, p: 1 });
  assert.match(old, /^\$scrypt\$ln=12,/);
  assert.equal(await verifyPassword(old, 'pw-12345678'), true, 'verified with its own parameters');
  assert.equal(needsRehash(old), true);
  assert.equal(needsRehash(old, { ...SCRYPT_DEFAULTS, ln: 12 }), false);
  assert.equal(await verifyPassword('plain-text-password', 'plain-text-password'), false);
  assert.equal(await verifyPassword(old.replace('ln=12', 'ln=31'), 'pw-12345678'), false, 'parameters out of bounds are refused, not computed');
});

test('passwords are compared after Unicode normalization (NFKC): the same password typed two ways verifies', async () => {
  const h = await hashPassword('caf\u00e9 au lait', { ln: 12, r: 8, p: 1 });
  assert.equal(await verifyPassword(h, 'cafe\u0301 au lait'), true);
});

test('the dummy hash is made once per parameters and verifies no password', async () => {
  const params = { ln: 12, r: 8, p: 1 };
  assert.equal(await dummyPasswordHash(params), await dummyPasswordHash(params));
  assert.equal(await verifyPassword(await dummyPasswordHash(params), ''), false);
});
