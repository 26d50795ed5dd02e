// The docker driver against real engines of the test's own (test/helpers/engines.ts): the
// shared contract on Debian's dockerd and on Podman's Docker-compatible socket, then what the
// contract does not cover (ports that answer, command/entrypoint/envs, network storage across
// stop/start and into a new container, labels, a crash, an OOM kill, a restarted Gantry, GPUs
// allocated and pinned: a fake CDI GPU on Podman, DeviceRequests on dockerd; images, pulls and
// registries are images.engines.test.ts's). Skipped with the reason where
// an engine is missing or the test is not root, never under GANTRY_TEST_REQUIRE_ENGINES=1.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { baseSpec, driverContract } from '../contract.ts';
import type { WorkloadSpec } from '../types.ts';
import { engineSkip, fakeCdiGpu, fakeGpuUuid, startEngine, type EngineKind, type TestEngine } from '../../../test/helpers/engines.ts';
import { until } from '../../../test/helpers/wait.ts';
import { createBody, LABEL } from './container.ts';
import { DockerDriver } from './driver.ts';

const engines = new Map<EngineKind, Promise<TestEngine>>();
function engine(kind: EngineKind): Promise<TestEngine> {
  let e = engines.get(kind);
  if (!e) {
    e = startEngine(kind);
    engines.set(kind, e);
  }
  return e;
}
after(async () => {
  await Promise.all([...engines.values()].map((e) => e.then((x) => x.stop(), () => {})));
});

const NETWORK = 'gantry-test';
function driverOn(e: TestEngine): DockerDriver {
  return new DockerDriver({ host: e.host, network: NETWORK, publishHost: '127.0.0.1' });
}
const uid = (p = 'ins_dk') => `${p}${Math.random().toString(36).slice(2, 10)}`;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

for (const kind of ['dockerd', 'podman'] as const) {
  const skip = engineSkip(kind);

  driverContract(`docker (${kind})`, async () => {
    const e = await engine(kind);
    return {
      driver: driverOn(e),
      pass: sleep, // real time: the contract polls describe() every 250 ms of it
      spec: (id) => baseSpec(id, e.image),
      patienceMs: 30_000,
      maxCallMs: 2_000,
    };
  }, { skip });

  /** A driver on the engine, and the ids it made, deleted at the end. */
  async function setup(t: { after(fn: () => Promise<void>): void }) {
    const e = await engine(kind);
    const driver = driverOn(e);
    const ids: string[] = [];
    t.after(async () => {
      const d = driverOn(e);
      await Promise.all(ids.map((id) => d.delete(id)));
      await until('the test\'s containers are gone', async () => (await Promise.all(ids.map((id) => d.describe(id)))).every((o) => o.phase === 'absent'), { limitMs: 20_000, everyMs: 100 });
      await d.close();
      await driver.close();
    });
    const spec = (over: Partial<WorkloadSpec> = {}): WorkloadSpec => {
      const id = over.id ?? uid();
      ids.push(id);
      return { ...baseSpec(id, e.image), memoryGb: 0.25, ...over, id };
    };
    const phase = async (id: string, want: string, d = driver) => {
      await until(`${id} is ${want}`, async () => (await d.describe(id)).phase === want, { limitMs: 20_000, everyMs: 100 });
      return d.describe(id);
    };
    const logText = async (id: string) => (await driver.logs(id, 0, 1000)).map((l) => l.line).join('\n');
    return { e, driver, spec, phase, logText };
  }

  test(`docker (${kind}): ports answer at address(), the command, entrypoint and envs reach the container, labels name it`, { skip }, async (t) => {
    const { e, driver, spec, phase, logText } = await setup(t);
    const s = spec({
      entrypoint: `sh -c 'echo "entry:$0:$1:$HELLO"; exec "$@"' gantry`,
      command: 'httpd -f -p 8080 -h /www',
      ports: [{ port: 8080, type: 'http' }, { port: 9090, type: 'tcp' }],
      envs: [{ key: 'HELLO', value: 'world with spaces' }],
      worker: { endpointId: 'ep_test', health: { path: '/', initialDelay: 0, period: 1, timeout: 1, successThreshold: 1, failureThreshold: 3 } },
    });
    await driver.create(s);
    await phase(s.id, 'running');
    const address = await driver.address(s.id);
    // a worker: never published, it answers at its address on its team's network (reached from this host)
    const ip = Object.values((await e.api('GET', `/containers/${s.id}/json`)).json.NetworkSettings.Networks as Record<string, { IPAddress: string }>)[0]!.IPAddress;
    assert.equal(address, `${ip}:8080`);
    let page = '';
    await until('the published port answers', async () => {
      page = await fetch(`http://${address}/index.html`).then((r) => r.text(), () => '');
      return page !== '';
    }, { limitMs: 10_000, everyMs: 100 });
    assert.equal(page, 'gantry-test-page\n');
    await until('the entrypoint wrote its line', async () => (await logText(s.id)).includes('entry:gantry:httpd:world with spaces'), { limitMs: 10_000, everyMs: 100 });
    const c = (await e.api('GET', `/containers/${s.id}/json`)).json;
    assert.deepEqual({ ...c.Config.Labels }, {
      ...c.Config.Labels,
      [LABEL.managed]: 'true', [LABEL.id]: s.id, [LABEL.role]: 'worker', [LABEL.endpoint]: 'ep_test', [LABEL.gpus]: '0', [LABEL.ports]: '8080,9090',
      [LABEL.team]: 'usr_contract', [LABEL.portTypes]: 'http,tcp', [LABEL.gpuUuids]: '',
    });
    const ports = await driver.ports(s.id);
    assert.deepEqual(ports.map((p) => [p.port, p.type]), [[8080, 'http'], [9090, 'tcp']]);
    assert.equal(ports[0]!.endpoint, address);
    assert.equal(ports[1]!.endpoint, `${ip}:9090`);
    assert.ok((await driver.list()).includes(s.id));
    assert.equal(c.HostConfig.NanoCpus, 1e9);
    assert.equal(c.HostConfig.Memory, 256 * 1024 ** 2);
    await driver.stop(s.id);
    await phase(s.id, 'stopped');
    assert.equal(await driver.address(s.id), undefined, 'no address once stopped');
  });

  test(`docker (${kind}): network storage keeps its data across stop/start and into a new container`, { skip }, async (t) => {
    const { e, driver, spec, phase, logText } = await setup(t);
    const storageId = uid('ns_');
    t.after(async () => {
      await e.api('DELETE', `/volumes/gantry-ns-${storageId}`);
    });
    const volumes = [{ type: 'network', size: '1', id: storageId, mountPath: '/mnt/shared' }];
    // shell syntax (a pipe, $(…)): the line runs through /bin/sh -c
    const command = 'echo "seen:$(cat /mnt/shared/runs 2>/dev/null | grep -c run)"; echo run >> /mnt/shared/runs; exec sleep 3600';
    // and a local (non-network) volume: an anonymous one, gone with its container
    const a = spec({ volumes: [...volumes, { type: 'local', size: '1', id: 'scratch', mountPath: '/scratch' }], command });
    await driver.create(a);
    await phase(a.id, 'running');
    await until('the first run wrote', async () => (await logText(a.id)).includes('seen:0'), { limitMs: 10_000, everyMs: 100 });
    await driver.stop(a.id);
    await phase(a.id, 'stopped');
    await driver.start(a);
    await phase(a.id, 'running');
    await until('the second run saw the first', async () => (await logText(a.id)).includes('seen:1'), { limitMs: 10_000, everyMs: 100 });
    await driver.delete(a.id);
    await phase(a.id, 'absent');
    const b = spec({ volumes, command });
    await driver.create(b);
    await phase(b.id, 'running');
    await until('a new container saw both runs', async () => (await logText(b.id)).includes('seen:2'), { limitMs: 10_000, everyMs: 100 });
    const vol = (await e.api('GET', `/volumes/gantry-ns-${storageId}`)).json;
    assert.equal(vol.Labels[LABEL.storage], storageId);
  });

  test(`docker (${kind}): a crash and an OOM kill are failed, crashed, with why`, { skip }, async (t) => {
    const { driver, spec, phase } = await setup(t);
    const crash = spec({ command: `sh -c 'echo bye; exit 3'` });
    // dd's 300 MB block in a 64 MiB container: the kernel kills dd (PID 1) → exit 137
    const oom = spec({ command: 'dd if=/dev/zero of=/dev/null bs=300M count=1', memoryGb: 64 / 1024 });
    await Promise.all([driver.create(crash), driver.create(oom)]);
    const c = await phase(crash.id, 'failed');
    assert.equal(c.reason, 'crashed');
    assert.match(c.message ?? '', /exited with code 3/);
    assert.ok((c.endedAtMs ?? 0) > 0, 'endedAtMs from FinishedAt');
    const o = await phase(oom.id, 'failed');
    assert.equal(o.reason, 'crashed');
    assert.match(o.message ?? '', /out of memory/);
    // a command the image does not have: the engine cannot start it
    const missing = spec({ command: 'no-such-binary --flag' });
    await driver.create(missing);
    const m = await phase(missing.id, 'failed');
    assert.equal(m.reason, 'crashed');
    assert.match(m.message ?? '', /no-such-binary/);
    // Gantry's own stop (a SIGKILL too: 137 under the limit) is a stop, never an OOM
    const s = spec({ memoryGb: 64 / 1024 });
    await driver.create(s);
    await phase(s.id, 'running');
    await driver.stop(s.id);
    const st = await phase(s.id, 'stopped');
    assert.ok((st.endedAtMs ?? 0) > 0);
  });

  test(`docker (${kind}): logs read in pages of a few lines give every line once, in order (many lines in one second)`, { skip }, async (t) => {
    const { driver, spec, phase } = await setup(t);
    const s = spec({ command: `sh -c 'i=0; while [ $i -lt 40 ]; do echo line-$i; i=$((i+1)); done; exec sleep 3600'` });
    await driver.create(s);
    await phase(s.id, 'running');
    await until('all 40 lines are written', async () => (await driver.logs(s.id, 0, 1000)).length >= 40, { limitMs: 10_000, everyMs: 100 });
    const read: { atMs: number; line: string }[] = [];
    for (let after = 0, pages = 0; ; pages++) {
      assert.ok(pages < 20, 'paging ends');
      const page = await driver.logs(s.id, after, 7);
      if (!page.length) break;
      read.push(...page);
      after = page[page.length - 1]!.atMs;
    }
    assert.deepEqual(read.map((l) => l.line), Array.from({ length: 40 }, (_, i) => `line-${i}`));
    assert.ok(read.every((l, i) => i === 0 || l.atMs > read[i - 1]!.atMs), 'times strictly increase (none shared with the page before)');
  });

  test(`docker (${kind}): a restarted Gantry (a new driver) finds its containers, and starts one left created`, { skip }, async (t) => {
    const { e, driver, spec, phase } = await setup(t);
    const a = spec();
    await driver.create(a);
    const run = await phase(a.id, 'running');
    await driver.close(); // Gantry is gone; the container is the engine's
    const again = driverOn(e);
    t.after(() => again.close());
    assert.deepEqual(await again.describe(a.id), run, 'the same run');
    assert.match((await again.address(a.id)) ?? '', /^127\.0\.0\.1:\d+$/);
    await again.stop(a.id);
    await phase(a.id, 'stopped', again);
    // a stop seen by a third driver: the intent is in the engine, not in a process
    const third = driverOn(e);
    t.after(() => third.close());
    assert.equal((await third.describe(a.id)).phase, 'stopped');
    // made but never started (Gantry died between the two calls)
    const b = spec();
    const made = await e.api('POST', `/containers/create?name=${b.id}`, createBody(b, { network: NETWORK, publishHost: '127.0.0.1' }));
    assert.equal(made.status, 201, JSON.stringify(made.json));
    assert.equal((await third.describe(b.id)).phase, 'starting');
    await phase(b.id, 'running', third);
  });

  test(`docker (${kind}): GPUs are allocated by UUID, recorded in labels, never given twice, refused when none is free`, { skip }, async (t) => {
    const { e, spec, phase, logText } = await setup(t);
    const gpu = fakeGpuUuid();
    t.after(fakeCdiGpu(kind, gpu));
    const withGpus = () => new DockerDriver({ host: e.host, network: NETWORK, publishHost: '127.0.0.1', gpus: [gpu], gpuMode: 'nvidia' });
    const driver = withGpus();
    t.after(() => driver.close());
    const cmd = 'sh -c \'ls /dev/gantry-gpu; echo "gpus:$NVIDIA_VISIBLE_DEVICES:$CUDA_VISIBLE_DEVICES:$GANTRY_FAKE_GPU"; exec sleep 3600\'';
    const a = spec({ gpuNum: 1, command: cmd });
    const b = spec({ gpuNum: 1, command: cmd });
    await Promise.all([driver.create(a), driver.create(b)]);
    const settled = async (id: string) => {
      await until(`${id} is made or refused`, async () => !['absent', 'creating', 'pulling'].includes((await driver.describe(id)).phase), { limitMs: 20_000, everyMs: 50 });
      return driver.describe(id);
    };
    const [oa, ob] = await Promise.all([settled(a.id), settled(b.id)]);
    const refused = [oa, ob].filter((o) => o.reason === 'insufficient_resource');
    assert.equal(refused.length, 1, `one of two creates at once gets the one GPU: ${JSON.stringify([oa, ob])}`);
    assert.equal(refused[0]!.message, "the workload asks 1 GPU; 0 of the server's 1 GPUs are free");
    const holder = oa.reason === 'insufficient_resource' ? b : a;
    const inspected = await e.api('GET', `/containers/${holder.id}/json`);
    assert.equal(inspected.json.Config.Labels[LABEL.gpuUuids], gpu);
    assert.equal(inspected.json.Config.Labels[LABEL.gpus], '1');
    if (kind === 'podman') {
      // libpod's create with the CDI name: Podman injected the fake GPU's device and env
      await phase(holder.id, 'running', driver);
      await until('the container printed its GPU', async () => /gpus:/.test(await logText(holder.id)), { limitMs: 10_000, everyMs: 100 });
      const text = await logText(holder.id);
      assert.match(text, /^\/dev\/gantry-gpu$/m);
      assert.match(text, new RegExp(`^gpus:${gpu}:0:${gpu}$`, 'm'));
    } else {
      // dockerd without the NVIDIA runtime refuses to start it; the container holds its GPU all the same
      const o = await phase(holder.id, 'failed', driver);
      assert.match(o.message ?? '', /nvidia/);
      const [req] = inspected.json.HostConfig.DeviceRequests;
      assert.deepEqual([req.Driver, req.DeviceIDs, req.Capabilities], ['nvidia', [gpu], [['gpu']]]);
    }
    // a restarted Gantry reads who holds what from the engine
    const again = withGpus();
    t.after(() => again.close());
    const c = spec({ gpuNum: 1 });
    await again.create(c);
    assert.equal((await phase(c.id, 'failed', again)).reason, 'insufficient_resource');
    const two = spec({ gpuNum: 2 });
    await again.create(two);
    assert.equal((await phase(two.id, 'failed', again)).message, "the workload asks 2 GPUs; 0 of the server's 1 GPUs are free");
    // deleted, the GPU is free again (a stopped container keeps it)
    await again.stop(holder.id);
    await phase(holder.id, 'stopped', again);
    const d = spec({ gpuNum: 1 });
    await again.create(d);
    assert.equal((await phase(d.id, 'failed', again)).reason, 'insufficient_resource', 'a stopped container keeps its GPU');
    await again.delete(holder.id);
    await phase(holder.id, 'absent', again);
    const f = spec({ gpuNum: 1, command: cmd });
    await again.create(f);
    await until(`${f.id} is made`, async () => !['absent', 'creating', 'pulling'].includes((await again.describe(f.id)).phase), { limitMs: 20_000, everyMs: 50 });
    assert.notEqual((await again.describe(f.id)).reason, 'insufficient_resource');
    assert.equal((await e.api('GET', `/containers/${f.id}/json`)).json.Config.Labels[LABEL.gpuUuids], gpu);
  });
}
