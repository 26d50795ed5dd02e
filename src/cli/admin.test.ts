import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { helpFor, toRequest } from './admin.ts';

test('CLI commands map to operator API calls', () => {
  assert.deepEqual(toRequest(['teams', 'create', '--name', 'acme', '--owner-email', 'o@acme.io', '--tier', 'T2']),
    { method: 'POST', path: '/admin/v1/teams', body: { name: 'acme', ownerEmail: 'o@acme.io', tier: 'T2' } });
  assert.deepEqual(toRequest(['members', 'role', 'mem_1', 'Admin']), { method: 'POST', path: '/admin/v1/members/mem_1/role', body: { role: 'Admin' } });
  const { said, ...topup } = toRequest(['topup', 'usr_1', '50', '--idempotency-key', 'k1']);
  assert.deepEqual(topup, { method: 'POST', path: '/admin/v1/teams/usr_1/topups', body: { amount: '500000', idempotencyKey: 'k1' } }, '$50 is 500000 units');
  assert.equal(said?.({ duplicate: false, amount: '500000', debtAmount: '-12500' }), 'Added a top-up of $50.00 to usr_1, of which $1.25 repaid what the team owed.');
  assert.equal(said?.({ duplicate: true, amount: '500000', debtAmount: '0' }), 'This top-up was posted before (the same idempotency key): nothing was added this time.');
  assert.deepEqual(toRequest(['quotas', 'override', 'usr_1', '--model', 'a/b', '--type', 'RPM', '--quota', 'none']),
    { method: 'PUT', path: '/admin/v1/teams/usr_1/quotas', body: { model: 'a/b', quotaType: 'RPM', currentQuota: null } });
  assert.deepEqual(toRequest(['team-models', 'usr_1', '--enabled', 'a/b,c/d']),
    { method: 'PUT', path: '/admin/v1/teams/usr_1/models', body: { enabledModels: ['a/b', 'c/d'] } });
  assert.throws(() => toRequest(['teams', 'create', '--name', 'x']), /--owner-email/);
  const { said: sent, ...add } = toRequest(['operators', 'add', 'ops@acme.io']);
  assert.deepEqual(add, { method: 'POST', path: '/admin/v1/operators', body: { email: 'ops@acme.io' } });
  assert.match(sent?.({ email: 'ops@acme.io' }) ?? '', /link was sent to ops@acme\.io/);
  assert.deepEqual(toRequest(['operators', 'revoke', 'opg_1']), { method: 'DELETE', path: '/admin/v1/operators/opg_1' });
  assert.throws(() => toRequest(['operators', 'add']), /missing email/);
  assert.throws(() => toRequest(['frobnicate']), /unknown admin command/);
});

test('a top-up without an idempotency key gets a fresh one each call', () => {
  const a = toRequest(['topup', 'usr_1', '1']).body as { idempotencyKey: string };
  const b = toRequest(['topup', 'usr_1', '1']).body as { idempotencyKey: string };
  assert.notEqual(a.idempotencyKey, b.idempotencyKey);
});

test('help: no command, help, --help, help <group>, or a group alone prints help (exit 0 in runAdminCli)', () => {
  const all = helpFor([])!;
  assert.match(all, /teams list/);
  assert.match(all, /gpu reclaim/);
  assert.equal(helpFor(['help']), all);
  assert.equal(helpFor(['teams', 'list', '--help']), helpFor(['teams']));
  for (const group of ['gpu', 'quotas', 'teams', 'members', 'keys', 'models', 'topup', 'team-models', 'call']) {
    const h = helpFor([group]);
    assert.ok(h, group);
    assert.match(h, new RegExp(`usage: gantry admin ${group} `));
    assert.equal(helpFor(['help', group]), h);
  }
  const gpu = helpFor(['gpu'])!;
  assert.match(gpu, /gpu inventory/);
  assert.doesNotMatch(gpu, /teams list/);
  // a command to run, or an unknown group, is not a help request
  assert.equal(helpFor(['gpu', 'catalogue']), undefined);
  assert.equal(helpFor(['teams', 'list']), undefined);
  assert.equal(helpFor(['frobnicate']), undefined);
  // a wrong subcommand says so and shows the group's help
  assert.throws(() => toRequest(['gpu', 'frobnicate']), (e: Error) => /unknown admin command: gpu frobnicate/.test(e.message) && /gpu inventory/.test(e.message) && !/teams list/.test(e.message));
});

test('help lists token rotate, which opens the store itself; an unknown token command is refused', async () => {
  const run = promisify(execFile);
  const root = new URL('../..', import.meta.url).pathname;
  const help = await run(process.execPath, ['bin/gantry.mjs', 'admin', 'help'], { cwd: root });
  assert.match(help.stdout, /token rotate\s+replace the operator token/);
  assert.match(help.stdout, /stop it first/);
  await assert.rejects(run(process.execPath, ['bin/gantry.mjs', 'admin', 'token', 'show'], { cwd: root }), (e: { code: number; stderr: string }) => {
    assert.equal(e.code, 2);
    assert.match(e.stderr, /unknown admin command: token show/);
    return true;
  });
});

test('amounts are typed in dollars and sent in units, exactly; finer than $0.0001 is refused, not rounded', () => {
  const body = (args: string[]) => toRequest(args).body as Record<string, string>;
  assert.equal(body(['topup', 'usr_1', '10.50']).amount, '105000');
  assert.equal(body(['topup', 'usr_1', '$0.0001']).amount, '1');
  assert.equal(body(['voucher', 'usr_1', '0.3']).amount, '3000');
  assert.equal(body(['credit-limit', 'usr_1', '100']).creditLimit, '1000000');
  assert.equal(toRequest(['credit-limit', 'usr_1', '12.5']).said?.({}), 'The credit limit of usr_1 is now $12.50.');
  assert.throws(() => toRequest(['topup', 'usr_1', '10.12345']), /the amount 10\.12345 is finer than Gantry's unit of \$0\.0001/);
  assert.throws(() => toRequest(['voucher', 'usr_1', '1e3']), /the amount must be dollars with at most 4 decimals, like 10\.50/);
  assert.throws(() => toRequest(['credit-limit', 'usr_1', '-5']), /the credit limit must be dollars/);
  assert.throws(() => toRequest(['topup', 'usr_1']), /missing amount \(dollars\)/);
  assert.throws(() => toRequest(['gpu', 'cluster', '--id', 'c', '--name', 'C', '--storage-price', '0.00001']), /--storage-price 0\.00001 is finer/);
});

test('budgets commands: a team\'s budgets, a member\'s or key\'s set in dollars, once or monthly, or unlimited', () => {
  const { said, ...list } = toRequest(['budgets', 'usr_1']);
  assert.deepEqual(list, { method: 'GET', path: '/admin/v1/teams/usr_1/budgets' });
  assert.equal(said?.({ budgets: [
    { email: 'o@x.io', role: 'Owner', member_id: 'mem_1', budget_type: 'One-time', budget_limit: 50000, used: 12345, remaining: 37655, keys: [{ key_id: 'key_1', key_name: 'ci', budget_type: 'Unlimited', budget_limit: 0, used: 0, remaining: 0 }] },
    { email: 'd@x.io', role: 'Developer', member_id: 'mem_2', budget_type: 'Recurring', budget_limit: 100000, used: 0, remaining: 100000, keys: [] },
  ] }), 'o@x.io (Owner, mem_1): $5.00 in all, $1.2345 used, $3.7655 left\n  key ci (key_1): unlimited\nd@x.io (Developer, mem_2): $10.00 a month, $0.00 used, $10.00 left');
  const member = toRequest(['budgets', 'member', 'mem_1', '5']);
  assert.deepEqual([member.method, member.path, member.body], ['PUT', '/admin/v1/members/mem_1/budget', { budget_type: 'One-time', budget_limit: '50000' }]);
  assert.equal(member.said?.({}), 'The budget of member mem_1 is now $5.00 in all.');
  assert.deepEqual(toRequest(['budgets', 'key', 'key_1', '2.50', '--monthly']).body, { budget_type: 'Recurring', budget_limit: '25000', cycle: 'Monthly' });
  assert.deepEqual(toRequest(['budgets', 'key', 'key_1', 'unlimited']).body, { budget_type: 'Unlimited' });
  assert.throws(() => toRequest(['budgets', 'key', 'key_1', 'unlimited', '--monthly']), /unlimited budget has no --monthly/);
  assert.throws(() => toRequest(['budgets', 'member', 'mem_1', '1.00001']), /the budget 1\.00001 is finer/);
  assert.throws(() => toRequest(['budgets', 'member', 'mem_1']), /missing budget \(dollars, or unlimited\)/);
  assert.throws(() => toRequest(['budgets', 'usr_1', '--monthly']), /unknown flag --monthly for gantry admin budgets: it takes no flags/);
  assert.match(helpFor(['budgets'])!, /budgets member <memberId> <dollars\|unlimited> \[--monthly\]/);
});
