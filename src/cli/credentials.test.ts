// Which file a store's credentials go to when one data dir serves more than one store
// (credentials.ts): nothing written for one store replaces another's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialsPath, findCredentials, ownFileName, readCredentials, saveCredentials, saveOperatorToken, storeOf } from './credentials.ts';

const creds = (tag: string) => ({ adminToken: `gop_${tag}`, userId: `usr_${tag}`, ownerMemberId: `mem_${tag}`, keyId: `key_${tag}`, apiKey: `sk_${tag}` });
const read = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8'));

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-creds-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const PG = storeOf('postgres://gantry:secret@db1:5433/gantry?sslmode=require');

test('a store is named without user or password; its own file name is readable', () => {
  assert.equal(storeOf(undefined), 'embedded');
  assert.equal(PG, 'postgres://db1:5433/gantry');
  assert.equal(storeOf('postgresql://postgres@127.0.0.1/test'), 'postgres://127.0.0.1:5432/test');
  assert.equal(ownFileName(PG), 'credentials-postgres-db1-5433-gantry.json');
  assert.equal(ownFileName('embedded'), 'credentials-embedded.json');
});

test('a second store on the data dir gets a file of its own; credentials.json is left as it was', (t) => {
  const dir = tempDir(t);
  assert.deepEqual(saveCredentials(dir, 'embedded', creds('a')), { path: join(dir, 'credentials.json') });
  assert.deepEqual(read(dir, 'credentials.json'), { ...creds('a'), store: 'embedded' });
  const saved = saveCredentials(dir, PG, creds('b'));
  assert.equal(saved.path, join(dir, 'credentials-postgres-db1-5433-gantry.json'));
  assert.deepEqual(saved.keptOther, { path: join(dir, 'credentials.json'), store: 'embedded' });
  assert.deepEqual(read(dir, 'credentials.json'), { ...creds('a'), store: 'embedded' });
  assert.deepEqual(read(dir, ownFileName(PG)), { ...creds('b'), store: PG });
  // each store finds its own
  assert.equal(findCredentials(dir, 'embedded')?.saved?.adminToken, 'gop_a');
  assert.equal(findCredentials(dir, PG)?.saved?.adminToken, 'gop_b');
  assert.equal(credentialsPath(dir, PG), join(dir, ownFileName(PG)));
  // a third store has none here; the CLI's HTTP commands fall back to credentials.json
  const other = storeOf('postgres://db2/x');
  assert.equal(findCredentials(dir, other), undefined);
  assert.equal(readCredentials(dir, other)?.adminToken, 'gop_a');
  // a store started again empty (its database re-created) replaces its own file only
  saveCredentials(dir, PG, creds('c'));
  saveCredentials(dir, 'embedded', creds('d'));
  assert.deepEqual(read(dir, ownFileName(PG)), { ...creds('c'), store: PG });
  assert.deepEqual(read(dir, 'credentials.json'), { ...creds('d'), store: 'embedded' });
  // a rotation writes into the rotated store's file, keeping the rest
  saveOperatorToken(dir, PG, 'gop_rotated');
  assert.deepEqual(read(dir, ownFileName(PG)), { ...creds('c'), adminToken: 'gop_rotated', store: PG });
  assert.deepEqual(read(dir, 'credentials.json'), { ...creds('d'), store: 'embedded' });
  assert.deepEqual(readdirSync(dir).sort(), ['credentials-postgres-db1-5433-gantry.json', 'credentials.json']);
});

test('a file of an older version (no store recorded) is never replaced by a first start, and by a rotation only when it holds the rotated token', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'credentials.json'), JSON.stringify(creds('old')));
  assert.equal(findCredentials(dir, 'embedded')?.saved?.adminToken, 'gop_old', 'read as before');
  const saved = saveCredentials(dir, PG, creds('new'));
  assert.equal(saved.path, join(dir, ownFileName(PG)));
  assert.deepEqual(saved.keptOther, { path: join(dir, 'credentials.json'), store: undefined });
  assert.deepEqual(read(dir, 'credentials.json'), creds('old'));
  // the rotation of another store (whose token the file does not hold): the file is kept
  const rotated = saveOperatorToken(dir, storeOf('postgres://db3/y'), 'gop_r1', (held) => held === 'gop_elsewhere');
  assert.equal(rotated.path, join(dir, ownFileName('postgres://db3:5432/y')));
  assert.deepEqual(read(dir, 'credentials.json'), creds('old'));
  // the rotation of the store whose token it holds: replaced, and now says which store
  saveOperatorToken(dir, 'embedded', 'gop_r2', (held) => held === 'gop_old');
  assert.deepEqual(read(dir, 'credentials.json'), { ...creds('old'), adminToken: 'gop_r2', store: 'embedded' });
});

test('a credentials.json that is not JSON is not replaced by a first start', (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'credentials.json'), '{ half');
  const saved = saveCredentials(dir, 'embedded', creds('a'));
  assert.equal(saved.path, join(dir, 'credentials-embedded.json'));
  assert.equal(readFileSync(join(dir, 'credentials.json'), 'utf8'), '{ half');
  assert.equal(findCredentials(dir, 'embedded')?.saved?.adminToken, 'gop_a');
});
