// A delete that commits while a reconciler pass is under way is not undone by that pass
// (reconciler.ts `unchangedTx`). Found by bench/serverless-docker.ts on real containers: an
// endpoint deleted the moment its first worker turned healthy stayed `serving` with its
// worker running (and billed), because the pass, which had read the endpoint as
// `initializing`, wrote `serving` over the delete's `terminating`. Here the delete is made
// inside the pass, between its read of the endpoint and its probe of the worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, BASE, PRODUCT } from '../../../test/helpers/compute-fixture.ts';
import * as q from '../../store/serverless-workers.ts';

test('a delete made during a pass that turns the first worker healthy stays a delete: the endpoint goes, with its worker', async () => {
  const f = await fixture();
  try {
    const created = await f.owner.post(`${BASE}/endpoint/create`, {
      endpoint: {
        appName: 'race', image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8000 }], products: [{ id: PRODUCT }],
        policy: { type: 'concurrency', value: 1 }, healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
        workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 60, maxConcurrent: 1, gpuNum: 1, requestTimeout: 120 },
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id as string;
    // the first time the pass asks where the running worker answers (just before its first probe), the tenant deletes the endpoint
    let deleted = false;
    const address = f.sim.address.bind(f.sim);
    f.sim.address = async (wid) => {
      if (!deleted) {
        deleted = true;
        const r = await f.owner.post(`${BASE}/endpoint/delete`, { name: id });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
      return address(wid);
    };
    const pass = async () => {
      f.t.clock.advance(1000);
      await f.t.services.serverlessRuntime.reconcile();
    };
    for (let i = 0; i < 60 && !deleted; i++) await pass();
    assert.ok(deleted, 'the worker ran and was about to be probed');
    const after = await q.findEndpointRow(f.t.store.db, id);
    assert.equal(after?.state, 'terminating', 'the pass that made the worker healthy did not write its state over the delete');
    assert.equal((await f.owner.get(`${BASE}/endpoint`, { id })).body.endpoint.state.state, 'terminating');
    for (let i = 0; i < 30 && (await q.findEndpointRow(f.t.store.db, id)); i++) await pass();
    assert.equal(await q.findEndpointRow(f.t.store.db, id), undefined, 'the endpoint is gone once its worker is');
    assert.deepEqual(await q.listLiveWorkers(f.t.store.db, id), []);
  } finally {
    await f.close();
  }
});
