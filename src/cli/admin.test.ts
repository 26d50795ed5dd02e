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
