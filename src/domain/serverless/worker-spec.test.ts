// What the driver is asked to run for a serverless worker (reconciler.ts `spec`): the product's
// CPUs and memory per unit, as an instance gets them (domain/compute/instances.ts: cpuPerGpu ×
// gpuNum), and the GPUs the endpoint asks. A CPU worker (gpuNum 0, allowed when the operator
// sets minGPUNum 0) gets one unit's CPUs and memory and no GPU, and is held and billed as one
// unit, taking one unit of the product's inventory (metering.ts `workerUnits`); before, it got cpuNum 0 and memoryGb 0 (kubernetes `cpu:
// "0"`, docker no limit at all) and cost nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, BASE, PRODUCT, PRICE } from '../../../test/helpers/compute-fixture.ts';
import type { WorkloadSpec } from '../../drivers/types.ts';
import { costMicro } from '../compute/metering.ts';
import { holdOf } from '../spend/holds.ts';
import { availability } from '../compute/catalogue.ts';
import * as q from '../../store/serverless-workers.ts';

/** the seeded product (domain/compute/seed.ts): 16 CPUs and 62 GB per GPU */
const CPU_PER_GPU = 16;
const MEMORY_PER_GPU = 62;

test('a worker is given its product\'s CPUs and memory per unit: gpuNum N → N units and N GPUs; a CPU worker (gpuNum 0) one unit and no GPU, held as one unit', async () => {
  const f = await fixture();
  try {
    const asked: WorkloadSpec[] = [];
    const create = f.sim.create.bind(f.sim);
    f.sim.create = (spec) => {
      asked.push(spec);
      return create(spec);
    };
    // gpuNum 0 is refused until the operator allows it
    const endpoint = (appName: string, gpuNum: number) => ({
      endpoint: {
        appName, image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8000 }], products: [{ id: PRODUCT }],
        policy: { type: 'concurrency', value: 1 }, healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 3 },
        workerConfig: { minNum: 1, maxNum: 1, freeTimeout: 60, maxConcurrent: 1, gpuNum, requestTimeout: 120 },
      },
    });
    const refused = await f.owner.post(`${BASE}/endpoint/create`, endpoint('cpu-refused', 0));
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    const limits = await f.admin.put('/admin/v1/serverless/limits', { minGPUNum: 0 });
    assert.equal(limits.status, 200, JSON.stringify(limits.body));

    const inUse = async () => (await availability(f.t.services.compute.ctx)).filter((a) => a.productId === PRODUCT).reduce((n, a) => n + a.used, 0);
    const usedBefore = await inUse();
    const ids: Record<string, string> = {};
    for (const [appName, gpuNum] of [['cpu', 0], ['two', 2]] as const) {
      const r = await f.owner.post(`${BASE}/endpoint/create`, endpoint(appName, gpuNum));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      ids[appName] = r.body.id;
    }
    await f.t.services.serverlessRuntime.reconcile(); // adds each endpoint's worker
    await f.t.services.serverlessRuntime.reconcile(); // asks the driver for it
    const of = async (appName: string) => {
      const [w] = await q.listLiveWorkers(f.t.store.db, ids[appName]!);
      assert.ok(w, `a worker of ${appName}`);
      const spec = asked.find((s) => s.id === w.id);
      assert.ok(spec, `the driver was asked for ${w.id}`);
      return { w, spec };
    };

    const cpu = await of('cpu');
    assert.deepEqual([cpu.spec.gpuNum, cpu.spec.cpuNum, cpu.spec.memoryGb], [0, CPU_PER_GPU, MEMORY_PER_GPU], 'no GPU, one unit of CPUs and memory');
    assert.equal(cpu.spec.worker?.endpointId, ids.cpu);
    assert.equal(await holdOf(f.t.store.db, cpu.w.id), costMicro(f.t.config.serverless.holdSeconds, 1, PRICE), 'its first hour held as one unit');

    const two = await of('two');
    assert.deepEqual([two.spec.gpuNum, two.spec.cpuNum, two.spec.memoryGb], [2, 2 * CPU_PER_GPU, 2 * MEMORY_PER_GPU], 'two GPUs, two units');
    assert.equal(await holdOf(f.t.store.db, two.w.id), costMicro(f.t.config.serverless.holdSeconds, 2, PRICE));
    assert.equal(await inUse(), usedBefore + 1 + 2, 'of the product\'s inventory, the CPU worker takes one unit, the other two');
  } finally {
    await f.close();
  }
});
