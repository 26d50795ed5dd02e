// The spend series (the console's chart): charges summed per bucket and category, model or
// key, over up to a year in one query; Billing roles only, like the bills.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { charge, createTeam, topup, type Team } from '../../../../test/helpers/factories.ts';

let h: TestApp;
let team: Team;
const S = (iso: string) => Math.floor(Date.parse(iso) / 1000);

before(async () => {
  h = await buildTestApp();
  team = await createTeam(h.app, h.creds.adminToken);
  await topup(h.app, h.creds.adminToken, team.userId, 10_000_000);
  const at = async (iso: string, body: Record<string, unknown>) => {
    h.clock.set(Date.parse(iso));
    await charge(h.app, h.creds.adminToken, team.userId, body);
  };
  await at('2026-01-15T10:00:00Z', { amount: 1000, category: 'gpu', productName: 'RTX 4090' });
  await at('2026-01-20T10:00:00Z', { amount: 500, category: 'llm', productName: 'acme/chat', keyId: team.owner.keyId, memberId: team.owner.memberId });
  await at('2026-06-02T10:00:00Z', { amount: 2000, category: 'llm', productName: 'acme/chat', keyId: team.owner.keyId, memberId: team.owner.memberId });
  await at('2026-06-03T10:00:00Z', { amount: 300, category: 'llm', productName: 'acme/embed' });
  h.clock.set(Date.parse('2026-11-01T00:00:00Z'));
});
after(() => h.close());

const year = { startTime: S('2025-11-15T00:00:00Z'), endTime: S('2026-11-01T00:00:00Z') };

test('by category per month, over most of a year in one query', async () => {
  const r = await as(h.app, team.owner.apiKey).get('/openapi/v1/billing/spend/series', { ...year, cycleType: 'Month', groupBy: 'category' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.data, [
    { startTime: String(S('2026-01-01T00:00:00Z')), group: 'gpu', amount: '1000' },
    { startTime: String(S('2026-01-01T00:00:00Z')), group: 'llm', amount: '500' },
    { startTime: String(S('2026-06-01T00:00:00Z')), group: 'llm', amount: '2300' },
  ]);
});

test('by model per day, and by API key (charges of no key left out)', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const june = { startTime: S('2026-06-01T00:00:00Z'), endTime: S('2026-06-30T00:00:00Z'), cycleType: 'Day' };
  const byModel = await owner.get('/openapi/v1/billing/spend/series', { ...june, groupBy: 'model' });
  assert.deepEqual(byModel.body.data, [
    { startTime: String(S('2026-06-02T00:00:00Z')), group: 'acme/chat', amount: '2000' },
    { startTime: String(S('2026-06-03T00:00:00Z')), group: 'acme/embed', amount: '300' },
  ]);
  const byKey = await owner.get('/openapi/v1/billing/spend/series', { ...year, cycleType: 'Month', groupBy: 'apikey' });
  assert.deepEqual(byKey.body.data.map((d: any) => [d.group, d.amount]), [['Owner-key', '500'], ['Owner-key', '2000']]);
});

test('refused: more than 366 days, an unknown group or cycle, a role without billing', async () => {
  const owner = as(h.app, team.owner.apiKey);
  const long = await owner.get('/openapi/v1/billing/spend/series', { startTime: S('2025-01-01T00:00:00Z'), endTime: S('2026-06-01T00:00:00Z'), cycleType: 'Month', groupBy: 'category' });
  assert.equal(long.status, 400);
  assert.match(long.body.message, /at most 366 days/);
  assert.equal((await owner.get('/openapi/v1/billing/spend/series', { ...year, cycleType: 'Month', groupBy: 'colour' })).status, 400);
  assert.equal((await owner.get('/openapi/v1/billing/spend/series', { ...year, cycleType: 'Hour', groupBy: 'model' })).status, 400);
  assert.equal((await as(h.app, team.members.Developer.apiKey).get('/openapi/v1/billing/spend/series', { ...year, cycleType: 'Month', groupBy: 'model' })).status, 403);
});
