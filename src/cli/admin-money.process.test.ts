// Money in the operator CLI, through the real process against a running Gantry: a person
// types dollars (`topup <team> 10.50`) and reads dollars (a line on stderr), while stdout stays
// the API's JSON in units; an amount finer than $0.0001 is refused before anything is sent.
// Budgets are read and set the same way; a product's JSON comes back with every problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildTestApp, type TestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';

type Admin = (...args: string[]) => Promise<{ stdout: string; stderr: string }>;

/** A listening Gantry, and `gantry admin …` run as a process against it with the operator token. */
async function withCli(fn: (t: TestApp, admin: Admin) => Promise<void>): Promise<void> {
  const t = await buildTestApp();
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    await fn(t, (...args) => promisify(execFile)(process.execPath, ['bin/gantry.mjs', 'admin', ...args], {
      cwd: new URL('../..', import.meta.url).pathname, env: { ...process.env, GANTRY_URL: url, GANTRY_ADMIN_TOKEN: t.creds.adminToken },
    }));
  } finally {
    await t.close();
  }
}

test('gantry admin topup / voucher / credit-limit take dollars, print the API\'s units and say dollars', async () => {
  await withCli(async (t, admin) => {
    const balance = async () => BigInt((await as(t.app, t.creds.apiKey).get('/openapi/v1/billing/balance/detail')).body.cashBalance);
    const before = await balance();

    const topup = await admin('topup', t.creds.userId, '10.50', '--idempotency-key', 'cli-money-1');
    assert.equal(JSON.parse(topup.stdout).amount, '105000', 'stdout is the API\'s answer, in units');
    assert.equal(topup.stderr, `Added a top-up of $10.50 to ${t.creds.userId}.\n`);
    assert.equal(await balance(), before + 105000n);
    const again = await admin('topup', t.creds.userId, '10.50', '--idempotency-key', 'cli-money-1');
    assert.match(again.stderr, /posted before \(the same idempotency key\): nothing was added/);
    assert.equal(await balance(), before + 105000n);

    await assert.rejects(admin('topup', t.creds.userId, '0.00005'), (e: { code: number; stderr: string }) => {
      assert.equal(e.code, 2);
      assert.match(e.stderr, /the amount 0\.00005 is finer than Gantry's unit of \$0\.0001 \(1\/10000 USD\): give at most 4 decimals; it is not rounded/);
      return true;
    });
    assert.equal(await balance(), before + 105000n, 'nothing was sent');

    const voucher = await admin('voucher', t.creds.userId, '$0.0001');
    assert.equal(JSON.parse(voucher.stdout).amount, '1');
    assert.match(voucher.stderr, /^Added a voucher of \$0\.0001 to /);
    const limit = await admin('credit-limit', t.creds.userId, '25');
    assert.equal(limit.stderr, `The credit limit of ${t.creds.userId} is now $25.00.\n`);
    assert.equal((await as(t.app, t.creds.apiKey).get('/openapi/v1/billing/balance/detail')).body.creditLimit, '250000');
  });
});

test('gantry admin budgets: set in dollars on the Owner and a key, read back in dollars; a product with every problem', async () => {
  await withCli(async (t, admin) => {
    const set = await admin('budgets', 'member', t.creds.ownerMemberId, '7.25', '--monthly');
    assert.equal(set.stderr, `The budget of member ${t.creds.ownerMemberId} is now $7.25 each month.\n`);
    await admin('budgets', 'key', t.creds.keyId, '1');
    const read = await admin('budgets', t.creds.userId);
    const owner = JSON.parse(read.stdout).budgets.find((b: { member_id: string }) => b.member_id === t.creds.ownerMemberId);
    assert.deepEqual([owner.budget_type, owner.budget_limit, owner.cycle], ['Recurring', 72500, 'Monthly'], 'stdout: the API\'s units');
    assert.match(read.stderr, new RegExp(`\\(Owner, ${t.creds.ownerMemberId}\\): \\$7\\.25 a month, \\$0\\.00 used, \\$7\\.25 left\n  key [^\\n]+ \\(${t.creds.keyId}\\): \\$1\\.00 in all, \\$0\\.00 used, \\$1\\.00 left`));

    await assert.rejects(admin('gpu', 'product', '--json', '{"id":"prd x","gpuModel":"H100","cpuPerGpu":0,"memoryPerGpu":1,"diskPerGpu":1,"price":1,"spotPrice":1,"monthlyPrice":1,"billingMethods":["hourly"]}'),
      (e: { code: number; stdout: string }) => {
        assert.equal(e.code, 1);
        const body = JSON.parse(e.stdout);
        assert.equal(body.metadata.problems, 4, body.message);
        assert.match(body.message, /^4 problems: .*name: is required/);
        return true;
      });
  });
});
