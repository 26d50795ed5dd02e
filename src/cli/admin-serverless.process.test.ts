import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { helpFor, toRequest } from './admin.ts';
import { buildTestApp } from '../../test/helpers/app.ts';

test('serverless limits commands map to the operator API', () => {
  const get = { method: 'GET', path: '/admin/v1/serverless/limits' };
  assert.deepEqual(toRequest(['serverless', 'limits']), get);
  assert.deepEqual(toRequest(['serverless', 'limits', 'get']), get);
  assert.deepEqual(toRequest(['serverless', 'limits', 'set', '--maxGPUNum', '4', '--minWorkerNum', '0', '--cudaVersionList', '12.1, 12.4']), {
    method: 'PUT', path: '/admin/v1/serverless/limits', body: { maxGPUNum: 4, minWorkerNum: 0, cudaVersionList: ['12.1', '12.4'] },
  });
  assert.deepEqual(toRequest(['serverless', 'limits', 'set', '--cudaVersionList', '']).body, { cudaVersionList: [] });
  assert.throws(() => toRequest(['serverless', 'limits', 'set']), /give at least one --<field> <value>/);
  assert.throws(() => toRequest(['serverless', 'frobnicate']), (e: Error) => /unknown admin command/.test(e.message) && /serverless limits set/.test(e.message));
  const help = helpFor(['serverless'])!;
  assert.match(help, /usage: gantry admin serverless /);
  assert.match(help, /serverless limits set --<field> <value>/);
  assert.match(helpFor([])!, /serverless limits \[get\]/);
});

test('gantry admin serverless limits: get, set (the server judges), against a running Gantry', async () => {
  const t = await buildTestApp();
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const run = (...args: string[]) => promisify(execFile)(process.execPath, ['bin/gantry.mjs', 'admin', 'serverless', 'limits', ...args], {
      cwd: new URL('../..', import.meta.url).pathname, env: { ...process.env, GANTRY_URL: url, GANTRY_ADMIN_TOKEN: t.creds.adminToken },
    });
    assert.equal(JSON.parse((await run()).stdout).maxGPUNum, 8);
    const set = JSON.parse((await run('set', '--maxGPUNum', '4', '--cudaVersionList', '12.4')).stdout);
    assert.deepEqual([set.maxGPUNum, set.minGPUNum, set.cudaVersionList], [4, 1, ['12.4']]);
    assert.equal(JSON.parse((await run('get')).stdout).maxGPUNum, 4);
    await assert.rejects(run('set', '--minGPUNum', '5'), (e: { code: number; stdout: string }) => {
      assert.equal(e.code, 1);
      assert.match(JSON.parse(e.stdout).message, /maxGPUNum: must be at least minGPUNum \(5\), got 4/);
      return true;
    });
  } finally {
    await t.close();
  }
});
