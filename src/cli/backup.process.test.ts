// `gantry backup` / `gantry restore` run as processes, as an operator runs them: a backup of a
// running embedded store is refused saying how; a store left by a killed server (its usage
// still in the journal, not yet in the ledger) is copied whole; restored into a new data dir
// it holds every row of every table (the ledger, the operator token's hash, the keys), the
// journal, secret.key and the credentials, and the restored server accepts the same operator
// token and API keys and counts the journaled usage. A symbolic link in a backup (wherever it
// points) is refused by restore before anything is written, and a backup never copies one.
// Every refusal says why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { runGantry, startServer, type Server } from '../../test/helpers/server.ts';
import { openStore } from '../store/db.ts';
import { MANIFEST } from './backup.ts';

type Creds = { adminToken: string; apiKey: string; userId: string; ownerMemberId: string };

/** Every row of every table of the store in `dataDir` (opened directly: no server may hold it), as sorted JSON per table. */
async function everyRow(dataDir: string): Promise<Record<string, string[]>> {
  const store = await openStore({ dataDir, pgliteThread: false });
  try {
    const q = async <T>(query: ReturnType<typeof sql.raw>) => ((await store.db.execute(query)) as unknown as { rows: T[] }).rows;
    const tables = await q<{ s: string; t: string }>(sql.raw(`select table_schema as s, table_name as t from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1, 2`));
    const out: Record<string, string[]> = {};
    for (const { s, t } of tables) {
      out[`${s}.${t}`] = (await q<{ j: string }>(sql.raw(`select row_to_json(x)::text as j from "${s}"."${t}" x`))).map((r) => r.j).sort();
    }
    return out;
  } finally {
    await store.close();
  }
}

const files = (dir: string) => readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();

async function call(server: Server, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

test('backup of a killed server\'s store and restore into a new data dir keep every row, the journal, the token and the keys', { timeout: 240_000 }, async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gantry-backup-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const a = join(root, 'a');
  const b = join(root, 'backups', 'b');
  const c = join(root, 'c');
  // usage waits in the journal (no reader of money asks for it before the kill)
  const env = (dataDir: string) => ({ GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000', GANTRY_USAGE_MOVE_DELAY_MS: '3600000' });

  let server = await startServer(env(a));
  t.after(() => server.kill('SIGKILL'));
  const creds = JSON.parse(readFileSync(join(a, 'credentials.json'), 'utf8')) as Creds;
  const topup = await call(server, creds.adminToken, 'POST', `/admin/v1/teams/${creds.userId}/topups`, { amount: '250000', idempotencyKey: 'backup-test' });
  assert.equal(topup.status, 200, JSON.stringify(topup.json));
  const key = await call(server, creds.adminToken, 'POST', `/admin/v1/members/${creds.ownerMemberId}/keys`, { name: 'second' });
  assert.equal(key.status, 200, JSON.stringify(key.json));
  const secondKey = key.json.apiKey as string;
  for (let i = 0; i < 3; i++) {
    const r = await call(server, creds.apiKey, 'POST', '/openai/v1/chat/completions', { model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 8 });
    assert.equal(r.status, 200, JSON.stringify(r.json));
  }

  // a running server holds the store: refused, saying how
  const live = await runGantry(['backup', b], env(a));
  assert.equal(live.code, 1, live.output);
  assert.match(live.output, /gantry backup: the data directory .* is in use by another Gantry process \(pid \d+/);
  assert.match(live.output, /stop the server .* run gantry backup, then start it again/);
  assert.match(live.output, /PostgreSQL and use pg_dump or PITR/);

  await server.kill('SIGKILL');
  const journal = join(a, 'usage-journal');
  assert.ok(readdirSync(journal).some((f) => statSync(join(journal, f)).size > 0), 'the killed server left usage in its journal');

  const made = await runGantry(['backup', b], env(a));
  assert.equal(made.code, 0, made.output);
  assert.match(made.output, /^Backed up .* to .*: \d+ files, [\d.]+ [KMG]iB\.$/m);
  assert.match(made.output, /did not shut down cleanly/);
  const manifest = JSON.parse(readFileSync(join(b, MANIFEST), 'utf8'));
  assert.equal(manifest.format, 'gantry-backup');
  assert.equal(manifest.secretKey, 'secret.key');
  assert.equal(manifest.blobs, 'data');
  assert.equal((statSync(b).mode & 0o777), 0o700, 'the backup is private');
  assert.ok(!files(join(b, 'data')).includes('gantry.lock'), 'the lock is not copied');

  const restored = await runGantry(['restore', b], env(c));
  assert.equal(restored.code, 0, restored.output);
  assert.match(restored.output, new RegExp(`Restored the backup of ${a} taken .* into ${c}\\.`));
  assert.equal((statSync(c).mode & 0o777), 0o700);
  for (const f of ['secret.key', 'credentials.json']) assert.equal(readFileSync(join(c, f), 'utf8'), readFileSync(join(a, f), 'utf8'), f);
  for (const f of readdirSync(journal)) assert.deepEqual(readFileSync(join(c, 'usage-journal', f)), readFileSync(join(journal, f)), `usage-journal/${f}`);

  // the database: every row of every table, as the killed server left it
  const before = await everyRow(a);
  assert.ok(before['public.ledger_entries']!.length >= 2, 'the voucher and the top-up are in the ledger');
  assert.ok(before['public.settings']!.some((r) => r.includes('operator')), 'the operator token\'s hash is among the settings');
  assert.deepEqual(await everyRow(c), before);

  // the restored server: the same operator token and keys; the journaled calls are counted
  server = await startServer(env(c));
  const teams = await call(server, creds.adminToken, 'GET', '/admin/v1/teams');
  assert.equal(teams.status, 200, JSON.stringify(teams.json));
  const usage = await call(server, creds.adminToken, 'GET', `/admin/v1/teams/${creds.userId}/usage`);
  assert.equal(usage.status, 200, JSON.stringify(usage.json));
  assert.equal(usage.json.events, 3, 'the three journaled calls');
  assert.equal(usage.json.chargedRequests, 3);
  const balanceC = await call(server, secondKey, 'GET', '/openapi/v1/billing/balance/detail');
  assert.equal(balanceC.status, 200, JSON.stringify(balanceC.json));
  assert.equal((await call(server, 'gop_not-the-token', 'GET', '/admin/v1/teams')).status, 401);
  await server.kill('SIGTERM');

  // the original, started again, comes to the same ledger
  server = await startServer(env(a));
  const balanceA = await call(server, creds.apiKey, 'GET', '/openapi/v1/billing/balance/detail');
  assert.deepEqual(balanceA.json, balanceC.json);
  await server.kill('SIGTERM');
  const ledgerA = await everyRow(a);
  const ledgerC = await everyRow(c);
  assert.ok(ledgerA['public.usage_events']!.length === 3, 'the journal was replayed into the ledger');
  // the same journal replayed on each: the same rows (the ids of the rows a replay makes are its own)
  const replayed = (rows: string[]) => rows.map((r) => JSON.stringify({ ...JSON.parse(r), id: undefined, ledger_id: undefined })).sort();
  assert.equal(ledgerA['public.usage_events']!.length, 3, 'the journal was replayed into the ledger');
  assert.ok(ledgerA['public.ledger_entries']!.some((r) => r.includes('"kind":"charge"')), 'the calls are charged');
  for (const table of ['public.ledger_entries', 'public.usage_events']) assert.deepEqual(replayed(ledgerC[table]!), replayed(ledgerA[table]!), table);
  for (const table of ['public.teams', 'public.api_keys', 'public.settings']) assert.deepEqual(ledgerC[table], ledgerA[table], table);

  // refusals
  const again = await runGantry(['restore', b], env(a));
  assert.equal(again.code, 1, again.output);
  assert.match(again.output, new RegExp(`gantry restore: the data directory ${a} is not empty \\(.*\\): gantry restore writes only into an empty or new directory`));
  assert.match(again.output, /set GANTRY_DATA_DIR to a new directory/);
  const full = await runGantry(['backup', b], env(a));
  assert.equal(full.code, 1, full.output);
  assert.match(full.output, /the backup target .* is not empty .*give a new or empty directory/);
  const inside = await runGantry(['backup', join(a, 'copy')], env(a));
  assert.equal(inside.code, 1, inside.output);
  assert.match(inside.output, /would be inside the data directory/);
  const notBackup = join(root, 'not-a-backup');
  mkdirSync(notBackup);
  writeFileSync(join(notBackup, 'x'), 'x');
  const wrong = await runGantry(['restore', notBackup], env(join(root, 'd')));
  assert.equal(wrong.code, 1, wrong.output);
  assert.match(wrong.output, /is not a Gantry backup \(it has no gantry-backup\.json\)/);
  // the file system's own refusal (here: a file where a directory should be) is one line too
  const fsError = await runGantry(['backup', join(notBackup, 'x', 'b')], env(a));
  assert.equal(fsError.code, 1, fsError.output);
  assert.match(fsError.output, /^gantry backup: EEXIST: file already exists, mkdir '.*not-a-backup\/x'\n$/);
  assert.doesNotMatch(fsError.output, /^\s+at /m, 'no stack trace');
  assert.deepEqual(readdirSync(root).filter((f) => f.startsWith('.')), [], 'no temporary copy left behind');
  const none = await runGantry(['backup', join(root, 'e')], env(join(root, 'empty')));
  assert.equal(none.code, 1, none.output);
  assert.match(none.output, /nothing to back up: .* holds no embedded store/);
});

test('a backup made by a newer Gantry (a migration this one does not know) is refused', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gantry-backup-new-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const b = join(root, 'b');
  mkdirSync(join(b, 'data'), { recursive: true });
  writeFileSync(join(b, 'data', 'PG_VERSION'), '17\n');
  writeFileSync(join(b, MANIFEST), JSON.stringify({ format: 'gantry-backup', version: 1, createdAt: 'x', dataDir: '/x', migration: '9999_from_the_future', secretKey: 'secret.key', blobs: 'data', files: 1, bytes: 3 }));
  const r = await runGantry(['restore', b], { GANTRY_DATA_DIR: join(root, 'data') });
  assert.equal(r.code, 1, r.output);
  assert.match(r.output, /made by a newer Gantry: its store has migration 9999_from_the_future/);
  assert.deepEqual(readdirSync(root), ['b'], 'nothing written');
});

test('PostgreSQL: backup and restore refuse, pointing at pg_dump / PITR and the secret key', async () => {
  const env = { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', GANTRY_DATA_DIR: join(tmpdir(), 'gantry-backup-never-made') };
  const b = await runGantry(['backup', join(tmpdir(), 'gantry-backup-never')], env);
  assert.equal(b.code, 1, b.output);
  assert.match(b.output, /gantry backup: gantry backup copies the embedded store, and DATABASE_URL is set: back PostgreSQL up with its own tools \(pg_dump -Fc, or continuous WAL archiving for point-in-time recovery\), and keep the secret key/);
  const r = await runGantry(['restore', join(tmpdir(), 'gantry-backup-never')], env);
  assert.equal(r.code, 1, r.output);
  assert.match(r.output, /pg_restore, or your PITR recovery/);
});

test('the command line: one directory, help, and no unknown option', async () => {
  const help = await runGantry(['backup', '--help'], {});
  assert.equal(help.code, 0);
  assert.match(help.output, /backup DIR {2}copy the embedded store/);
  assert.match(help.output, /restore DIR put a backup into GANTRY_DATA_DIR/);
  const none = await runGantry(['backup'], {});
  assert.equal(none.code, 2);
  assert.match(none.output, /gantry backup takes one argument, the directory to write the backup into/);
  const two = await runGantry(['restore', 'a', 'b'], {});
  assert.equal(two.code, 2);
  assert.match(two.output, /gantry restore takes one argument, the backup's directory; got 2: a b/);
  const flag = await runGantry(['backup', '--online', 'x'], {});
  assert.equal(flag.code, 2);
  assert.match(flag.output, /unknown option "--online" for gantry backup/);
});

// The rules below need no database: a backup copies files and a restore puts them back, so a
// directory marked as a store (PG_VERSION) stands in for one and each command runs in a blink.
function fakeStore(dir: string, files: Record<string, string>, mark = true): void {
  for (const [name, text] of Object.entries({ ...(mark ? { PG_VERSION: '17\n' } : {}), ...files })) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

test('a local blob store outside the data dir is backed up into blobs/ and restored to GANTRY_BLOB_DIR', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gantry-backup-blobs-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const data = join(root, 'data');
  const blobs = join(root, 'blobs');
  fakeStore(data, { 'secret.key': 'k\n' });
  fakeStore(blobs, { 'files/a.bin': 'file bytes' }, false);
  const env = (d: string, b: string) => ({ GANTRY_DATA_DIR: d, GANTRY_BLOB_DIR: b });

  const inside = await runGantry(['backup', join(blobs, 'b')], env(data, blobs));
  assert.equal(inside.code, 1, inside.output);
  assert.match(inside.output, /would be inside the blob directory/);

  const b = join(root, 'b');
  const made = await runGantry(['backup', b], env(data, blobs));
  assert.equal(made.code, 0, made.output);
  assert.equal(JSON.parse(readFileSync(join(b, MANIFEST), 'utf8')).blobs, 'blobs');
  assert.equal(readFileSync(join(b, 'blobs', 'files', 'a.bin'), 'utf8'), 'file bytes');

  // to another blob dir outside the new data dir
  const r1 = await runGantry(['restore', b], env(join(root, 'd1'), join(root, 'x1')));
  assert.equal(r1.code, 0, r1.output);
  assert.equal(readFileSync(join(root, 'x1', 'files', 'a.bin'), 'utf8'), 'file bytes');
  assert.equal(readFileSync(join(root, 'd1', 'secret.key'), 'utf8'), 'k\n');
  // to the default blob dir, inside the new data dir
  const r2 = await runGantry(['restore', b], { GANTRY_DATA_DIR: join(root, 'd2') });
  assert.equal(r2.code, 0, r2.output);
  assert.equal(readFileSync(join(root, 'd2', 'blobs', 'files', 'a.bin'), 'utf8'), 'file bytes');
  // a blob dir that holds something: refused, and the data dir is not written either
  const r3 = await runGantry(['restore', b], env(join(root, 'd3'), blobs));
  assert.equal(r3.code, 1, r3.output);
  assert.match(r3.output, /the blob directory .* is not empty \(files\).*set GANTRY_BLOB_DIR to a new directory/);
  // blobs now in S3: the backup's local blobs would be left behind, so it is refused
  const r4 = await runGantry(['restore', b], { GANTRY_DATA_DIR: join(root, 'd4'), GANTRY_BLOB_STORE: 's3', GANTRY_S3_BUCKET: 'bucket' });
  assert.equal(r4.code, 1, r4.output);
  assert.match(r4.output, /holds a local blob store .* and this configuration keeps blobs in S3/);
  for (const d of ['d3', 'd4']) assert.ok(!readdirSync(root).includes(d), `${d} was not made`);
  // the other way round: blobs in the data dir's default place, restored where GANTRY_BLOB_DIR points elsewhere
  fakeStore(join(root, 'inner'), { 'blobs/files/b.bin': 'inner bytes' });
  const b5 = await runGantry(['backup', join(root, 'b5')], { GANTRY_DATA_DIR: join(root, 'inner') });
  assert.equal(b5.code, 0, b5.output);
  const r5 = await runGantry(['restore', join(root, 'b5')], env(join(root, 'd5'), join(root, 'x5')));
  assert.equal(r5.code, 0, r5.output);
  assert.match(r5.output, new RegExp(`File bytes are in ${join(root, 'd5', 'blobs')}, and GANTRY_BLOB_DIR is ${join(root, 'x5')}: move them there before starting`));
  assert.deepEqual(readdirSync(root).filter((f) => f.startsWith('.')), [], 'no temporary copy left behind');
});

test('a backup holding a symbolic link, wherever it points, is refused by restore before anything is written, naming the entry', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gantry-backup-links-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const outside = join(root, 'outside');
  fakeStore(outside, { 'secret.txt': 'not the backup\'s' }, false);
  fakeStore(join(root, 'data'), { 'base/1/16384': 'rows', 'secret.key': 'k\n' });
  fakeStore(join(root, 'blobs'), { 'files/a.bin': 'file bytes' }, false);
  const made = await runGantry(['backup', join(root, 'b')], { GANTRY_DATA_DIR: join(root, 'data'), GANTRY_BLOB_DIR: join(root, 'blobs') });
  assert.equal(made.code, 0, made.output);
  const restoreInto = (name: string) => runGantry(['restore', join(root, 'b')], { GANTRY_DATA_DIR: join(root, name), GANTRY_BLOB_DIR: join(root, `${name}-blobs`) });
  const plant = (link: string, to: string) => {
    symlinkSync(to, join(root, 'b', link));
    return () => rmSync(join(root, 'b', link));
  };
  const cases: [link: string, to: string][] = [
    ['data/base/1/16385', join(outside, 'secret.txt')], // a file outside the backup
    ['data/base/2', outside], // a directory outside it
    ['blobs/files/b.bin', '../../../outside/secret.txt'], // relative, out of it
    ['data/pg_copy', 'PG_VERSION'], // even one that stays inside
  ];
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [link, to] of cases) {
    const remove = plant(link, to);
    const r = await restoreInto('r');
    assert.equal(r.code, 1, `${link}: ${r.output}`);
    assert.match(r.output, new RegExp(`holds ${escaped(join(root, 'b', link))}, which is a symbolic link \\(to ${escaped(to)}\\).*regular files and directories only`), link);
    assert.deepEqual(readdirSync(root).sort(), ['b', 'blobs', 'data', 'outside'], `${link}: nothing written`);
    remove();
  }
  // the backup's data/ and its manifest must not be links either
  const manifest = readFileSync(join(root, 'b', MANIFEST), 'utf8');
  rmSync(join(root, 'b', MANIFEST));
  symlinkSync(join(root, 'data', 'secret.key'), join(root, 'b', MANIFEST));
  assert.match((await restoreInto('r')).output, /gantry-backup\.json is a symbolic link/);
  rmSync(join(root, 'b', MANIFEST));
  writeFileSync(join(root, 'b', MANIFEST), manifest);
  rmSync(join(root, 'b', 'data'), { recursive: true });
  symlinkSync(join(root, 'data'), join(root, 'b', 'data'));
  assert.match((await restoreInto('r')).output, /the backup .*\/b\/data is a symbolic link \(to .*\/data\), not a directory/);
  assert.deepEqual(readdirSync(root).sort(), ['b', 'blobs', 'data', 'outside'], 'nothing written');

  // a backup never copies a link: a data dir holding one is refused; GANTRY_DATA_DIR that is one is followed
  symlinkSync(outside, join(root, 'data', 'blobs'));
  const linked = await runGantry(['backup', join(root, 'b2')], { GANTRY_DATA_DIR: join(root, 'data') });
  assert.equal(linked.code, 1, linked.output);
  assert.match(linked.output, /the data directory holds .*\/data\/blobs, which is a symbolic link/);
  assert.ok(!existsSync(join(root, 'b2')), 'no backup made');
  rmSync(join(root, 'data', 'blobs'));
  symlinkSync(join(root, 'data'), join(root, 'data-link'));
  const viaLink = await runGantry(['backup', join(root, 'b3')], { GANTRY_DATA_DIR: join(root, 'data-link') });
  assert.equal(viaLink.code, 0, viaLink.output);
  assert.ok(lstatSync(join(root, 'b3', 'data')).isDirectory(), 'the tree was copied, not the link');
  assert.equal(readFileSync(join(root, 'b3', 'data', 'base', '1', '16384'), 'utf8'), 'rows');
});

test('the secret key: one from GANTRY_SECRET_KEY is not in the backup, and a restore says what the key must be', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gantry-backup-key-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const key = Buffer.alloc(32, 7).toString('base64');
  const other = Buffer.alloc(32, 9).toString('base64');
  fakeStore(join(root, 'envkey'), {});
  const b1 = await runGantry(['backup', join(root, 'b1')], { GANTRY_DATA_DIR: join(root, 'envkey'), GANTRY_SECRET_KEY: key });
  assert.equal(b1.code, 0, b1.output);
  assert.match(b1.output, /The secret key is GANTRY_SECRET_KEY, not a file: keep it with this backup/);
  const r1 = await runGantry(['restore', join(root, 'b1')], { GANTRY_DATA_DIR: join(root, 'r1') });
  assert.equal(r1.code, 0, r1.output);
  assert.match(r1.output, /took its secret key from GANTRY_SECRET_KEY: set the same key before starting/);

  fakeStore(join(root, 'filekey'), { 'secret.key': `${key}\n` });
  const b2 = await runGantry(['backup', join(root, 'b2')], { GANTRY_DATA_DIR: join(root, 'filekey') });
  assert.equal(b2.code, 0, b2.output);
  const same = await runGantry(['restore', join(root, 'b2')], { GANTRY_DATA_DIR: join(root, 'r2'), GANTRY_SECRET_KEY: key });
  assert.equal(same.code, 0, same.output);
  assert.doesNotMatch(same.output, /secret/i, 'the same key: nothing to say');
  const differs = await runGantry(['restore', join(root, 'b2')], { GANTRY_DATA_DIR: join(root, 'r3'), GANTRY_SECRET_KEY: other });
  assert.equal(differs.code, 0, differs.output);
  assert.match(differs.output, /GANTRY_SECRET_KEY is set and differs from the restored secret\.key, which it overrides/);
});

test('blobs in S3 are named as outside the backup; a backup that is not whole or not there is refused', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gantry-backup-misc-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  fakeStore(join(root, 'data'), {});
  const s3 = await runGantry(['backup', join(root, 'b')], { GANTRY_DATA_DIR: join(root, 'data'), GANTRY_BLOB_STORE: 's3', GANTRY_S3_BUCKET: 'media-prod' });
  assert.equal(s3.code, 0, s3.output);
  assert.match(s3.output, /File bytes are in the S3 bucket media-prod, not in this backup/);

  const missing = await runGantry(['restore', join(root, 'nothing-here')], { GANTRY_DATA_DIR: join(root, 'r') });
  assert.equal(missing.code, 1);
  assert.match(missing.output, /no backup at .*nothing-here: it does not exist/);
  const manifest = JSON.parse(readFileSync(join(root, 'b', MANIFEST), 'utf8'));
  writeFileSync(join(root, 'b', MANIFEST), JSON.stringify({ ...manifest, version: 2 }));
  const newer = await runGantry(['restore', join(root, 'b')], { GANTRY_DATA_DIR: join(root, 'r') });
  assert.equal(newer.code, 1);
  assert.match(newer.output, /made by a newer Gantry \(backup format 2; this one reads 1\)/);
  writeFileSync(join(root, 'b', MANIFEST), JSON.stringify(manifest));
  rmSync(join(root, 'b', 'data', 'PG_VERSION'));
  const partial = await runGantry(['restore', join(root, 'b')], { GANTRY_DATA_DIR: join(root, 'r') });
  assert.equal(partial.code, 1);
  assert.match(partial.output, /is incomplete: .* holds no database/);
  writeFileSync(join(root, 'b', MANIFEST), '{not json');
  const garbled = await runGantry(['restore', join(root, 'b')], { GANTRY_DATA_DIR: join(root, 'r') });
  assert.equal(garbled.code, 1);
  assert.match(garbled.output, /cannot be read as a backup's manifest/);
  assert.ok(!readdirSync(root).includes('r'), 'nothing restored');
});
