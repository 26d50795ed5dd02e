// The shared driver contract suite: every driver must pass it. The sim runs it on a manual
// clock; the kubernetes driver runs it against a real cluster when KUBECONFIG is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ComputeDriver, ObservedPhase, WorkloadSpec } from './types.ts';

export interface ContractHarness {
  driver: ComputeDriver;
  /** let `ms` of time pass (advance a manual clock, or really wait) */
  pass(ms: number): Promise<void>;
  spec(id: string): WorkloadSpec;
  /** the longest a phase may take before the suite gives up */
  patienceMs: number;
  /** how long one call may block at most ("never blocks") */
  maxCallMs: number;
  cleanup?(): Promise<void>;
}

export function baseSpec(id: string, image = 'busybox:1.36'): WorkloadSpec {
  return {
    id, teamId: 'usr_contract', clusterId: 'cls_local', image, command: 'sleep 3600', entrypoint: '', envs: [{ key: 'HELLO', value: 'world' }],
    ports: [{ port: 8080, type: 'http' }], gpuNum: 0, cpuNum: 1, memoryGb: 1, rootfsGb: 1, nodeSelector: {}, volumes: [],
  };
}

async function timed<T>(h: ContractHarness, what: string, p: Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await p;
  const ms = performance.now() - t0;
  assert.ok(ms <= h.maxCallMs, `${what} blocked for ${Math.round(ms)} ms (limit ${h.maxCallMs})`);
  return out;
}

async function waitFor(h: ContractHarness, id: string, phases: ObservedPhase[]): Promise<ObservedPhase> {
  for (let waited = 0; ; waited += 250) {
    const o = await timed(h, 'describe', h.driver.describe(id));
    if (phases.includes(o.phase)) return o.phase;
    assert.ok(waited <= h.patienceMs, `${id} never reached ${phases.join('|')} (is ${o.phase} ${o.message ?? ''})`);
    await h.pass(250);
  }
}

const uid = () => `ins_contract${Math.random().toString(36).slice(2, 10)}`;

/** The contract, case by case: its title, and what it runs against a driver of its own. */
const CASES: ReadonlyArray<readonly [string, (h: ContractHarness) => Promise<void>]> = [
  ['an unknown workload is absent; delete and stop of it are no-ops', async (h) => {
    const id = uid();
    assert.equal((await h.driver.describe(id)).phase, 'absent');
    await timed(h, 'stop', h.driver.stop(id));
    await timed(h, 'delete', h.driver.delete(id));
    assert.equal((await h.driver.describe(id)).phase, 'absent');
  }],

  ['create is idempotent, returns at once, and the workload reaches running', async (h) => {
    const id = uid();
    await timed(h, 'create', h.driver.create(h.spec(id)));
    await timed(h, 'create again', h.driver.create(h.spec(id)));
    const first = (await h.driver.describe(id)).phase;
    assert.ok(['creating', 'pulling', 'starting', 'running'].includes(first), first);
    await waitFor(h, id, ['running']);
    const o = await h.driver.describe(id);
    assert.ok((o.startedAtMs ?? 0) > 0, 'running reports when it started');
    await h.driver.delete(id);
    await waitFor(h, id, ['absent']);
  }],

  ['stop → stopped, start → running again (a new run), delete → absent; each idempotent', async (h) => {
    const id = uid();
    await h.driver.create(h.spec(id));
    await waitFor(h, id, ['running']);
    const run1 = (await h.driver.describe(id)).startedAtMs ?? 0;
    await timed(h, 'stop', h.driver.stop(id));
    await timed(h, 'stop again', h.driver.stop(id));
    await waitFor(h, id, ['stopped']);
    await h.pass(1000);
    await timed(h, 'start', h.driver.start(h.spec(id)));
    await timed(h, 'start again', h.driver.start(h.spec(id)));
    await waitFor(h, id, ['running']);
    assert.ok(((await h.driver.describe(id)).startedAtMs ?? 0) > run1, 'a start is a new run');
    await timed(h, 'delete', h.driver.delete(id));
    await timed(h, 'delete again', h.driver.delete(id));
    await waitFor(h, id, ['absent']);
  }],

  ['a running workload\'s output: lines with times, none repeated after the last one read', async (h) => {
    const id = uid();
    await h.driver.create({ ...h.spec(id), command: 'sh -c "echo gantry-contract; sleep 3600"' });
    await waitFor(h, id, ['running']);
    let lines = await h.driver.logs(id, 0, 1000);
    for (let waited = 0; !lines.length; waited += 250) {
      assert.ok(waited <= h.patienceMs, `${id} wrote nothing`);
      await h.pass(250);
      lines = await h.driver.logs(id, 0, 1000);
    }
    assert.ok(lines.every((l, i) => typeof l.line === 'string' && l.atMs >= (lines[i - 1]?.atMs ?? 0)), 'oldest first');
    const last = lines[lines.length - 1]!;
    assert.ok((await h.driver.logs(id, last.atMs, 1000)).every((l) => l.atMs > last.atMs));
    assert.equal((await timed(h, 'logs', h.driver.logs(id, 0, 1))).length, 1, 'at most limit lines');
    await h.driver.delete(id);
    await waitFor(h, id, ['absent']);
    assert.deepEqual(await h.driver.logs(id, 0, 10), [], 'a workload that is gone has none');
  }],

  ['ports() gives every port of a running workload with where it answers; list() names every workload it manages', async (h) => {
    const id = uid();
    const spec = { ...h.spec(id), ports: [{ port: 8080, type: 'http' }, { port: 9090, type: 'tcp' }] };
    assert.deepEqual(await timed(h, 'ports', h.driver.ports(id)), [], 'an unknown workload has none');
    await timed(h, 'create', h.driver.create(spec));
    assert.ok((await timed(h, 'list', h.driver.list())).includes(id), 'a workload being made is listed');
    await waitFor(h, id, ['running']);
    let ports = await h.driver.ports(id);
    for (let waited = 0; ports.length < 2; waited += 250) {
      assert.ok(waited <= h.patienceMs, `${id}'s ports never published (${JSON.stringify(ports)})`);
      await h.pass(250);
      ports = await h.driver.ports(id);
    }
    assert.deepEqual(ports.map((p) => [p.port, p.type]), [[8080, 'http'], [9090, 'tcp']], 'the spec\'s ports, in its order');
    assert.ok(ports.every((p) => /^(\[[0-9a-fA-F:]+\]|[^:\s]+):\d+$/.test(p.endpoint)), `host:port endpoints (${JSON.stringify(ports)})`);
    assert.equal(await h.driver.address(id), ports[0]!.endpoint, 'address() is the first port\'s endpoint');
    await h.driver.stop(id);
    assert.deepEqual(await h.driver.ports(id), [], 'none once a stop is asked');
    assert.ok((await h.driver.list()).includes(id), 'a stopped workload is listed');
    await h.driver.delete(id);
    await waitFor(h, id, ['absent']);
    assert.ok(!(await h.driver.list()).includes(id), 'a deleted one is not');
  }],

  ['close returns at once and may be called again; the suite closes every driver it made', async (h) => {
    const id = uid();
    await h.driver.create(h.spec(id));
    await waitFor(h, id, ['running']);
    await h.driver.delete(id);
    await waitFor(h, id, ['absent']);
    await timed(h, 'close', h.driver.close());
    await timed(h, 'close again', h.driver.close());
  }],

  ['an image that cannot be pulled fails with image_pull_failed', async (h) => {
    const id = uid();
    await h.driver.create({ ...h.spec(id), image: 'registry.invalid/gantry/sim-fail-pull:does-not-exist' });
    await waitFor(h, id, ['failed']);
    assert.equal((await h.driver.describe(id)).reason, 'image_pull_failed');
    await h.driver.delete(id);
    await waitFor(h, id, ['absent']);
  }],
];

export function driverContract(name: string, make: () => Promise<ContractHarness>, opts: { skip?: string | false } = {}): void {
  for (const [title, fn] of CASES) {
    test(`${name} driver contract: ${title}`, { skip: opts.skip || false }, async () => {
      const h = await make();
      try {
        await fn(h);
      } finally {
        await h.driver.close();
        await h.cleanup?.();
      }
    });
  }
}
