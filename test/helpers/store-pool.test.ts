// The warm test stores (store-pool.ts): a store given back is the template's again for the
// next test, a closed lease reaches nothing, and a store whose schema a test changed is not
// reused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { openTestStore } from './app.ts';

const count = async (s: Awaited<ReturnType<typeof openTestStore>>, q: string) =>
  Number(((await s.db.execute(sql.raw(q))) as unknown as { rows: { n: string | number }[] }).rows[0]!.n);

test('a store given back is the template again: rows, settings and identities as the template has them', { skip: process.env.TEST_DATABASE_URL ? 'the pool is the embedded store\'s' : false }, async () => {
  const a = await openTestStore();
  const teams = await count(a, 'select count(*) as n from teams');
  const settings = await count(a, 'select count(*) as n from settings');
  await a.db.execute(sql.raw("insert into settings (key, value) values ('pool_probe', '1'::jsonb)"));
  await a.db.execute(sql.raw('truncate teams cascade'));
  await a.close();
  // Drizzle says which query failed; why is its cause
  await assert.rejects(a.db.execute(sql.raw('select 1')), (e: Error) => /the database is closed/.test(String((e.cause as Error | undefined)?.message)));

  const b = await openTestStore();
  try {
    assert.equal(await count(b, 'select count(*) as n from teams'), teams);
    assert.equal(await count(b, 'select count(*) as n from settings'), settings);
    assert.equal(await count(b, "select count(*) as n from settings where key = 'pool_probe'"), 0);
  } finally {
    await b.close();
  }
});

test('a store whose schema a test changed is not handed out again', { skip: process.env.TEST_DATABASE_URL ? 'the pool is the embedded store\'s' : false }, async () => {
  const a = await openTestStore();
  await a.db.execute(sql.raw('create table pool_probe (x int)'));
  await a.close();
  const b = await openTestStore();
  try {
    assert.equal(await count(b, "select count(*) as n from pg_tables where tablename = 'pool_probe'"), 0);
  } finally {
    await b.close();
  }
});
