// The install-time template (pglite-template.ts): a first start copies it in instead of
// running initdb, and ends up with exactly the database initdb + every migration gives; a
// template made for other migrations or another PGlite is never used.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { findTemplate, holdsDatabase, templatePath } from './pglite-template.ts';
import { buildTemplate } from './pglite-template-build.ts';
import { startEmbedded } from './embedded-start.ts';
import { migrateStore, openStore, type Store } from './db.ts';

const tables = async (store: Store) => ((await store.db.execute(sql`
  select table_name || ':' || string_agg(column_name || ' ' || data_type, ', ' order by column_name) as t
    from information_schema.columns where table_schema in ('public', 'drizzle') group by table_schema, table_name order by 1`)) as unknown as { rows: Array<{ t: string }> }).rows.map((r) => r.t);
const applied = async (store: Store) => ((await store.db.execute(sql`select hash from drizzle.__drizzle_migrations order by id`)) as unknown as { rows: Array<{ hash: string }> }).rows.map((r) => r.hash);

/** One template for the tests that only read it (a build is an initdb and every migration: most of this file's time) */
let shared: Promise<{ cache: string; file: string }> | undefined;
function sharedTemplate(): Promise<{ cache: string; file: string }> {
  shared ??= (async () => {
    const cache = mkdtempSync(join(tmpdir(), 'gantry-tpl-cache-'));
    return { cache, file: await buildTemplate(cache) };
  })();
  return shared;
}
after(async () => {
  if (shared !== undefined) rmSync((await shared).cache, { recursive: true, force: true });
});

test('a first start from the template holds what initdb and every migration give; a second start ignores the template', async () => {
  const { cache, file } = await sharedTemplate();
  const fromTpl = mkdtempSync(join(tmpdir(), 'gantry-tpl-a-'));
  const fresh = mkdtempSync(join(tmpdir(), 'gantry-tpl-b-'));
  try {
    assert.equal(findTemplate(cache), file);
    assert.equal(holdsDatabase(fromTpl), false);
    const a = await openStore({ started: startEmbedded({ dataDir: fromTpl, template: file }) });
    const before = await applied(a);
    await migrateStore(a); // nothing left to apply
    assert.deepEqual(await applied(a), before, 'the template is fully migrated');
    const b = await openStore({ dataDir: fresh });
    await migrateStore(b);
    assert.deepEqual(await tables(a), await tables(b), 'same tables and columns as initdb + migrations');
    assert.deepEqual(await applied(a), await applied(b));
    await a.db.execute(sql`create table started_here (x int)`);
    await a.close();
    await b.close();
    // A data dir that holds a database is opened as it is, template or not.
    assert.equal(holdsDatabase(fromTpl), true);
    const again = await openStore({ started: startEmbedded({ dataDir: fromTpl, template: file }) });
    assert.ok((await tables(again)).some((t) => t.startsWith('started_here:')), 'not overwritten by the template');
    await again.close();
  } finally {
    for (const d of [fromTpl, fresh]) rmSync(d, { recursive: true, force: true });
  }
});

test('a template made for other migrations or another PGlite is not found, and a new one replaces it', async () => {
  const cache = mkdtempSync(join(tmpdir(), 'gantry-tpl-cache-'));
  try {
    writeFileSync(join(cache, 'pglite-0.0.1-0000000000000000.tar'), 'stale'); // the tar this once was
    mkdirSync(join(cache, 'pglite-0.0.2-0000000000000000'));
    writeFileSync(join(cache, 'pglite-0.0.2-0000000000000000', 'PG_VERSION'), '17');
    assert.equal(findTemplate(cache), undefined);
    mkdirSync(templatePath(cache)); // this install's, but cut short: no PG_VERSION
    assert.equal(findTemplate(cache), undefined, 'an incomplete template is not used');
    const file = await buildTemplate(cache);
    assert.equal(file, templatePath(cache));
    assert.deepEqual(readdirSync(cache), [file.slice(cache.length + 1)], 'the stale ones are gone');
    assert.equal(findTemplate(cache), file);
    assert.equal(existsSync(join(file, 'gantry.lock')), false, "the build's lock is not part of it");
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

test('a first start whose copy of the template was cut short (no PG_VERSION yet) copies it again and opens a whole database', async () => {
  const { file } = await sharedTemplate();
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-tpl-cut-'));
  try {
    // what a kill during the copy leaves: some of the files, one of them cut, and not PG_VERSION
    cpSync(join(file, 'global'), join(dataDir, 'global'), { recursive: true });
    truncateSync(join(dataDir, 'global', 'pg_control'), 100);
    assert.equal(holdsDatabase(dataDir), false);
    const store = await openStore({ started: startEmbedded({ dataDir, template: file }) });
    try {
      assert.ok((await tables(store)).some((t) => t.startsWith('teams:')), 'the migrated schema is there');
      assert.ok((await applied(store)).length > 0);
    } finally {
      await store.close();
    }
    assert.equal(holdsDatabase(dataDir), true);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
