// The lists the console shows page on the server: at 100,000 instances of one team, a page
// (first, deep, filtered) is one request answered in bounded time, not a scan of every row's
// JSON. The rows are copies of one instance made by SQL (the reconciler never picks them up).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { as } from './helpers/http.ts';
import { createTeam, topup, type Team } from './helpers/factories.ts';

const N = 100_000;
const GPU = '/gpu-instance/openapi/v1';
let h: TestApp;
let team: Team;

before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
  await topup(h.app, h.creds.adminToken, team.userId, 100_000_000);
  const created = await as(h.app, team.owner.apiKey).post(`${GPU}/gpu/instance/create`, {
    name: 'seed', productId: 'prd_rtx4090_24g', gpuNum: 1, rootfsSize: 50, imageUrl: 'nginx:latest', kind: 'gpu', billingMode: 'onDemand',
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const cols = (await h.store.db.execute(sql`select column_name from information_schema.columns where table_name = 'instances' order by ordinal_position`) as unknown as { rows: { column_name: string }[] }).rows
    .map((r) => r.column_name);
  const pick = (c: string) => c === 'id' ? `id || '-' || lpad(g::text, 6, '0')` : c === 'name' ? `'box-' || g` : c === 'status' ? `case when g % 10 = 0 then 'running' else 'exited' end`
    : c === 'next_reconcile_at_ms' ? '9007199254740991' : c;
  await h.store.db.execute(sql.raw(`insert into instances (${cols.join(', ')}) select ${cols.map(pick).join(', ')} from instances, generate_series(1, ${N}) g where id = '${created.body.id}'`));
});
after(() => h.close());

test(`at ${N.toLocaleString('en-US')} instances a page of the list is one bounded request`, { timeout: 120_000 }, async (t) => {
  const owner = as(h.app, team.owner.apiKey);
  const timed = async (query: Record<string, string | number>) => {
    const started = performance.now();
    const r = await owner.get(`${GPU}/gpu/instances`, query);
    const ms = performance.now() - started;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return { r, ms };
  };
  await timed({ pageSize: 20, pageNum: 1 }); // warm
  const first = await timed({ pageSize: 20, pageNum: 1 });
  assert.equal(first.r.body.total, N + 1);
  assert.equal(first.r.body.instances.length, 20);
  const deep = await timed({ pageSize: 20, pageNum: 4000 });
  assert.equal(deep.r.body.instances.length, 20);
  const running = await timed({ pageSize: 5, pageNum: 1, status: 'running' });
  assert.equal(running.r.body.total, N / 10);
  const named = await timed({ pageSize: 20, pageNum: 1, name: 'box-99999' });
  assert.equal(named.r.body.total, 1);
  t.diagnostic(`first page ${first.ms.toFixed(0)} ms, page 4000 ${deep.ms.toFixed(0)} ms, running (overview) ${running.ms.toFixed(0)} ms, name search ${named.ms.toFixed(0)} ms`);
  for (const [what, ms] of [['first', first.ms], ['deep', deep.ms], ['running', running.ms], ['name', named.ms]] as const) {
    assert.ok(ms < 3000, `${what} page took ${ms.toFixed(0)} ms`);
  }
});
