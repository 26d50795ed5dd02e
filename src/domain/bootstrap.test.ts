// The first start's seed is all or nothing: a start that dies halfway leaves an empty store,
// which the next start seeds; of two starts at once, one seeds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { openMigratedStore } from '../../test/helpers/app.ts';
import { ManualClock } from '../lib/clock.ts';
import { standaloneCtx } from './context.ts';
import { getSetting } from '../store/settings.ts';
import { OPERATOR_TOKEN_KEY } from './operator-token.ts';
import { bootstrap } from './bootstrap.ts';

const count = async (db: Parameters<typeof standaloneCtx>[0], table: string) =>
  Number(((await db.execute(sql.raw(`select count(*)::int as n from ${table}`))) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);

test('a seed that fails halfway leaves nothing behind, and the next start seeds; two starts at once seed once', async (t) => {
  const store = await openMigratedStore();
  t.after(() => store.close());
  const ctx = standaloneCtx(store.db, new ManualClock());
  const failing = async () => {
    throw new Error('the machine went away');
  };
  await assert.rejects(bootstrap(ctx, { seedVoucherUnits: 5n, seeders: [failing] }), /went away/);
  assert.equal(await getSetting(store.db, OPERATOR_TOKEN_KEY), undefined, 'no token claimed');
  for (const table of ['teams', 'api_keys', 'ledger_entries', 'llm_models']) assert.equal(await count(store.db, table), 0, table);

  const [a, b] = await Promise.all([bootstrap(ctx, { seedVoucherUnits: 5n }), bootstrap(ctx, { seedVoucherUnits: 5n })]);
  assert.equal([a, b].filter(Boolean).length, 1, 'one of two starts seeds');
  assert.equal(await count(store.db, 'teams'), 1);
  assert.ok(await getSetting(store.db, OPERATOR_TOKEN_KEY));
  assert.equal(await bootstrap(ctx, { seedVoucherUnits: 5n }), null, 'a later start finds it seeded');
});
