import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../app.ts';
import { SimDriver } from '../../drivers/sim/driver.ts';
import { as } from '../../../test/helpers/http.ts';
import { buildTestApp } from '../../../test/helpers/app.ts';
import { BASE, PRICE, fixture, gpuChargesMicro } from '../../../test/helpers/compute-fixture.ts';
import { costMicro } from './metering.ts';
import { baseSpec } from '../../drivers/contract.ts';

test('a Gantry restart mid-way resumes every instance where it was', async () => {
  const f = await fixture();
  try {
    const ids: Record<string, string> = {};
    ids.running = await f.create({ name: 'was-running' });
    ids.stopping = await f.create({ name: 'will-stop' });
    ids.removing = await f.create({ name: 'will-remove' });
    await f.until(ids.running, 'running');
    await f.until(ids.stopping, 'running');
    await f.until(ids.removing, 'running');
    ids.pulling = await f.create({ name: 'was-pulling' });
    await f.t.services.compute.reconcile(); // → creating
    await f.run(2500, 2500); // creating → pulling
    ids.creating = await f.create({ name: 'was-creating' });
    await f.t.services.compute.reconcile(); // → creating
    ids.toCreate = await f.create({ name: 'never-touched' });
    await f.owner.post(`${BASE}/gpu/instance/stop`, { instanceId: ids.stopping });
    await f.owner.post(`${BASE}/gpu/instance/delete`, { instanceId: ids.removing });
    const before: Record<string, string> = {};
    for (const [k, id] of Object.entries(ids)) before[k] = (await f.get(id)).status;
    assert.deepEqual(before, { running: 'running', stopping: 'toStop', removing: 'toRemove', creating: 'creating', pulling: 'pulling', toCreate: 'toCreate' });

    // The process goes away (the sim's in-memory "cluster" with it); a new one starts on the same store.
    await f.t.app.close();
    const fresh = new SimDriver(f.t.clock);
    const b = await buildApp({ config: f.t.config, store: f.t.store, clock: f.t.clock, logger: false, computeDriver: fresh });
    const o = as(b.app, f.team.owner.apiKey);
    const status = async (id: string) => (await o.get(`${BASE}/gpu/instance`, { instanceId: id })).body;
    try {
      // 90 s: a running instance is looked at every meterIntervalMs (60 s), then recreated (10 s)
      for (let i = 0; i < 180; i++) {
        f.t.clock.advance(500);
        await b.services.compute.reconcile();
      }
      assert.equal((await status(ids.creating)).status, 'running');
      assert.equal((await status(ids.pulling)).status, 'running');
      assert.equal((await status(ids.toCreate)).status, 'running');
      assert.equal((await status(ids.running)).status, 'running'); // recreated after the restart
      assert.equal((await status(ids.stopping)).status, 'exited');
      assert.equal((await status(ids.removing)).status, 'removed');
      for (const id of [ids.creating, ids.pulling, ids.toCreate, ids.running]) assert.equal((await fresh.describe(id)).phase, 'running');
    } finally {
      await b.app.close();
      await f.t.store.close();
    }
  } catch (e) {
    await f.t.store.close().catch(() => undefined);
    throw e;
  }
});

test('a lease held by a crashed replica is taken over when it runs out', async () => {
  const f = await fixture();
  try {
    const id = await f.create();
    // another replica leased the row and died
    await f.t.store.db.execute(`update instances set lease_until_ms = ${f.t.clock.nowMs() + 30_000} where id = '${id}'` as never);
    await f.run(10_000, 1000);
    assert.equal((await f.get(id)).status, 'toCreate', 'leased rows are left alone');
    await f.run(21_000, 1000);
    await f.until(id, 'running');
  } finally {
    await f.close();
  }
});

test('failure injection: image pull failure and no capacity end in exited with statusError', async () => {
  const f = await fixture();
  try {
    const pull = await f.create({ imageUrl: 'registry.example.com/sim-fail-pull:1' });
    const g = await f.until(pull, 'exited');
    assert.equal(g.statusError.state, 'image_pull_failed');
    assert.match(g.statusError.message, /image pull failed/);
    assert.equal(await gpuChargesMicro(f, pull), 0n, 'never running, never billed');

    const nocap = await f.create();
    f.sim.injectFailure(nocap, 'insufficient_resource');
    const n = await f.until(nocap, 'exited');
    assert.equal(n.statusError.state, 'insufficient_resource');
    assert.match(n.statusError.message, /insufficient resources/);

    // after a failure the user can fix things and start again; the error is cleared
    assert.equal((await f.owner.post(`${BASE}/gpu/instance/start`, { instanceId: nocap })).status, 200);
    const again = await f.until(nocap, 'running');
    assert.deepEqual(again.statusError, { state: '', message: '' });
  } finally {
    await f.close();
  }
});

test('failure injection: a crash while running stops billing and explains itself', async () => {
  const f = await fixture();
  try {
    const id = await f.create();
    await f.until(id, 'running');
    await f.run(10_000, 1000);
    f.sim.crash(id);
    const g = await f.until(id, 'exited');
    assert.equal(g.statusError.state, 'crashed');
    assert.match(g.statusError.message, /crashed/);
    const charged = await gpuChargesMicro(f, id);
    assert.ok(charged >= costMicro(10, 1, PRICE) && charged <= costMicro(11, 1, PRICE), String(charged));
    await f.run(120_000, 10_000);
    assert.equal(await gpuChargesMicro(f, id), charged);
    // an image marked to crash dies by itself after a while
    const c = await f.create({ imageUrl: 'demo/sim-crash:1' });
    await f.until(c, 'running');
    assert.equal((await f.until(c, 'exited', 200_000)).statusError.state, 'crashed');
  } finally {
    await f.close();
  }
});

test('GANTRY_SIM_TIME_SCALE=100 makes a whole lifecycle 100 times shorter', async () => {
  const t = await buildTestApp({ env: { GANTRY_SIM_TIME_SCALE: '100' } });
  try {
    const sim = t.services.compute.driver as SimDriver;
    assert.equal(sim.timings.pullMs, 80);
    const o = as(t.app, t.creds.apiKey);
    const r = await o.post(`${BASE}/gpu/instance/create`, { productId: 'prd_rtx4090_24g', gpuNum: 1, rootfsSize: 50, imageUrl: 'i', kind: 'gpu' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await t.services.compute.reconcile();
    // create 20 ms + pull 80 ms of simulated time: running within three reconciler polls (1 s each)
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1000);
      await t.services.compute.reconcile();
    }
    assert.equal((await o.get(`${BASE}/gpu/instance`, { instanceId: r.body.id })).body.status, 'running');
  } finally {
    await t.close();
  }
});

test('orphans: a workload of the driver with no instance or worker row is deleted; instances\' workloads are left alone', async () => {
  const f = await fixture();
  try {
    const driver = f.t.services.compute.driver;
    const id = await f.create({ name: 'kept', ports: '8000/http' });
    await f.until(id, 'running');
    // a workload labelled as Gantry's whose row is gone (e.g. made by a process that died before its row was kept)
    const orphan = 'ins_orphan0000000000000000';
    await driver.create({ ...baseSpec(orphan), teamId: f.team.userId });
    assert.deepEqual((await driver.list()).sort(), [id, orphan].sort());
    f.t.clock.advance(60_000); // the sweep runs at most once a minute
    await f.t.services.compute.reconcile();
    assert.equal((await driver.describe(orphan)).phase, 'deleting');
    f.t.clock.advance(5000);
    assert.equal((await driver.describe(orphan)).phase, 'absent');
    assert.equal((await driver.describe(id)).phase, 'running', 'the instance\'s workload stays');
    assert.equal((await f.get(id)).status, 'running');
    assert.deepEqual(await driver.list(), [id]);
    assert.deepEqual((await f.get(id)).portMappings, [{ port: 8000, type: 'http', endpoint: `${id}.cls_local.gantry.local:8000` }], 'its endpoint was recorded');
  } finally {
    await f.t.app.close();
    await f.t.store.close();
  }
});
