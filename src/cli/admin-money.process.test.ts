// Money in the operator CLI, through the real process against a running Gantry: a person
// types dollars (`topup <team> 10.50`) and reads dollars (a line on stderr), while stdout stays
// the API's JSON in units; an amount finer than $0.0001 is refused before anything is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildTestApp } from '../../test/helpers/app.ts';
import { as } from '../../test/helpers/http.ts';

test('gantry admin topup / voucher / credit-limit take dollars, print the API\'s units and say dollars', async () => {
  const t = await buildTestApp();
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const admin = (...args: string[]) => promisify(execFile)(process.execPath, ['bin/gantry.mjs', 'admin', ...args], {
      cwd: new URL('../..', import.meta.url).pathname, env: { ...process.env, GANTRY_URL: url, GANTRY_ADMIN_TOKEN: t.creds.adminToken },
    });
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
  } finally {
    await t.close();
  }
});
