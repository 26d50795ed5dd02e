// The operator's budgets (admin API): a team's member and key budgets read with this month's
// spend, and set on any member or key, the Owner's included (no role rule binds the operator),
// by the tenant API's budget rules; a tenant's key is refused, an unknown member or key is 404.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam, topup } from '../../../../test/helpers/factories.ts';

test('the operator reads a team\'s budgets and sets a member\'s and a key\'s, the Owner\'s included', async () => {
  const t = await buildTestApp();
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    await topup(t.app, t.creds.adminToken, team.userId, 1_000_000);
    const admin = as(t.app, t.creds.adminToken);
    assert.equal((await admin.put(`/admin/v1/members/${team.owner.memberId}/budget`, { budget_type: 'One-time', budget_limit: 50000 })).status, 200);
    const key = team.members.Developer;
    assert.equal((await admin.put(`/admin/v1/keys/${key.keyId}/budget`, { budget_type: 'Recurring', budget_limit: '20000', cycle: 'Monthly' })).status, 200);
    // spend on the Owner's key shows as used
    const charge = await admin.post(`/admin/v1/teams/${team.userId}/charges`, {
      amount: '12345', category: 'llm', billingMethod: 1, idempotencyKey: 'budgets-owner', keyId: team.owner.keyId,
      productId: 'gantry/sim-chat-small', productName: 'gantry/sim-chat-small',
    });
    assert.equal(charge.status, 200, JSON.stringify(charge.body));

    const list = await admin.get(`/admin/v1/teams/${team.userId}/budgets`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const owner = list.body.budgets.find((b: { member_id: string }) => b.member_id === team.owner.memberId);
    assert.equal(owner.budget_type, 'One-time');
    assert.equal(owner.budget_limit, 50000);
    assert.equal(owner.used, 12345, 'the Owner\'s spend counts');
    assert.equal(owner.remaining, 50000 - owner.used);
    const dev = list.body.budgets.find((b: { member_id: string }) => b.member_id === key.memberId);
    assert.deepEqual(dev.keys.map((k: { key_id: string; budget_type: string; budget_limit: number; cycle?: string }) => [k.key_id, k.budget_type, k.budget_limit, k.cycle]), [[key.keyId, 'Recurring', 20000, 'Monthly']]);
    // the tenant API sees what the operator set
    assert.equal((await as(t.app, team.owner.apiKey).get('/openapi/v1/user/team/budget-list')).body.budgets.find((b: { member_id: string }) => b.member_id === team.owner.memberId).budget_limit, 50000);

    // Unlimited lifts it; the budget's own rules hold; unknown ids are 404; tenants are refused
    assert.equal((await admin.put(`/admin/v1/members/${team.owner.memberId}/budget`, { budget_type: 'Unlimited' })).status, 200);
    assert.equal((await admin.get(`/admin/v1/teams/${team.userId}/budgets`)).body.budgets.find((b: { member_id: string }) => b.member_id === team.owner.memberId).budget_type, 'Unlimited');
    const low = await admin.put(`/admin/v1/keys/${key.keyId}/budget`, { budget_type: 'One-time', budget_limit: 5 });
    assert.equal(low.status, 400);
    assert.equal(low.body.metadata.field, 'budget_limit');
    assert.equal((await admin.put('/admin/v1/keys/key_nothere/budget', { budget_type: 'Unlimited' })).status, 404);
    assert.equal((await admin.put('/admin/v1/members/mem_nothere/budget', { budget_type: 'Unlimited' })).status, 404);
    assert.equal((await admin.get('/admin/v1/teams/usr_nothere/budgets')).status, 404);
    assert.equal((await as(t.app, team.owner.apiKey).get(`/admin/v1/teams/${team.userId}/budgets`)).status, 401);
  } finally {
    await t.close();
  }
});
