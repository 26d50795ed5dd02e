// A key for another member (issue 32, item 3: an Owner or Admin hands a member a key from the
// console), and the balance's voucher part that the console's Overview shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';

let h: TestApp;
before(async () => { h = await buildTestApp(); });
after(() => h.close());

test('Owner and Admin create a key for another member; Admin never for the Owner; others only their own', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const t = await admin.post('/admin/v1/teams', { name: 'keys-for', ownerEmail: 'o@keys.io' });
  const owner = as(h.app, (await admin.post(`/admin/v1/members/${t.body.ownerMemberId}/keys`, { name: 'o' })).body.apiKey);
  const adm = (await owner.post('/openapi/v1/user/team/members', { email: 'a@keys.io', role: 'Admin' })).body.memberId;
  const dev = (await owner.post('/openapi/v1/user/team/members', { email: 'd@keys.io', role: 'Developer' })).body.memberId;

  // the Owner creates the Admin's first key: it works at once, as the Admin
  const forAdmin = await owner.post('/openapi/v1/user/keys', { name: 'handed over', member_id: adm });
  assert.equal(forAdmin.status, 200, JSON.stringify(forAdmin.body));
  const a = as(h.app, forAdmin.body.apiKey);
  assert.deepEqual((await a.get('/openapi/v1/user/keys')).body.keys.map((k: { name: string; memberId: string }) => [k.name, k.memberId]), [['handed over', adm]]);
  // the Admin creates one for the Developer, never for the Owner
  const forDev = await a.post('/openapi/v1/user/keys', { name: 'dev key', member_id: dev });
  assert.equal(forDev.status, 200);
  assert.equal((await as(h.app, forDev.body.apiKey).get('/openapi/v1/user/keys')).body.keys[0].memberId, dev);
  const toOwner = await a.post('/openapi/v1/user/keys', { name: 'x', member_id: t.body.ownerMemberId });
  assert.equal(toOwner.status, 403);
  assert.equal(toOwner.body.metadata.rule, 'only an Owner acts on an Owner');
  // a Developer only its own; a member of another team reads as not found
  const d = as(h.app, forDev.body.apiKey);
  const devForAdmin = await d.post('/openapi/v1/user/keys', { name: 'x', member_id: adm });
  assert.equal(devForAdmin.status, 403);
  assert.equal(devForAdmin.body.metadata.field, 'member_id');
  assert.equal((await d.post('/openapi/v1/user/keys', { name: 'mine', member_id: dev })).status, 200, 'naming oneself is the default');
  const other = await admin.post('/admin/v1/teams', { name: 'other-keys', ownerEmail: 'o@other-keys.io' });
  assert.equal((await owner.post('/openapi/v1/user/keys', { name: 'x', member_id: other.body.ownerMemberId })).status, 404);
  assert.equal((await admin.get(`/admin/v1/teams/${t.body.userId}`)).status, 200);
  assert.equal((await a.get('/openapi/v1/user/keys')).body.keys.length, 1, 'nothing created by the refusals');
});

test('the balance carries its voucher part: available = vouchers + cash + credit - owed - pending', async () => {
  const admin = as(h.app, h.creds.adminToken);
  const t = await admin.post('/admin/v1/teams', { name: 'vouchers', ownerEmail: 'o@vouchers.io' });
  const owner = as(h.app, (await admin.post(`/admin/v1/members/${t.body.ownerMemberId}/keys`, { name: 'o' })).body.apiKey);
  assert.equal((await admin.post(`/admin/v1/teams/${t.body.userId}/topups`, { amount: '120000', idempotencyKey: 'cash-1' })).status, 200);
  assert.equal((await admin.post(`/admin/v1/teams/${t.body.userId}/vouchers`, { amount: '50000', idempotencyKey: 'voucher-1' })).status, 200);
  const b = (await owner.get('/openapi/v1/billing/balance/detail')).body;
  assert.equal(b.voucherBalance, '50000');
  assert.equal(b.cashBalance, '120000');
  assert.equal(BigInt(b.availableBalance), BigInt(b.voucherBalance) + BigInt(b.cashBalance) + BigInt(b.creditLimit) - BigInt(b.outstandingInvoices) - BigInt(b.pendingCharges));
  assert.equal((await admin.get(`/admin/v1/teams/${t.body.userId}`)).body.balance.voucherBalance, '50000');
});
