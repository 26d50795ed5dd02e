// Serverless workers as real containers (issue 31, "Serverless workers"): a real `gantry serve`
// on the docker driver (GANTRY_COMPUTE_DRIVER=docker) against a dockerd and a Podman of the
// test's own (helpers/engines.ts), everything asked through the HTTP surface and checked
// against the engine's own API: an endpoint's worker is a container labelled as one, it is
// healthy only once the endpoint's health path answers at its address on its team's network
// (a real HTTP probe; a worker's port is never published, issue 40), requests to /serverless/<appName>/… reach that container and return its bytes, a
// burst scales out to a second container and idleness back in (the container removed), a
// worker whose health path starts failing is replaced by a new container, and deleting the
// endpoint leaves no container (nor marker volume). The worker is the test image's busybox
// httpd; this machine has no GPU, so the endpoint asks gpuNum 0 (a CPU worker: the operator
// allows it with minGPUNum 0). Then, Gantry restarted with a stand-in nvidia-smi listing one
// GPU, a worker with gpuNum 1 is given that GPU by UUID through the driver's one allocation
// (Podman injects it from a fake CDI spec; dockerd, with no NVIDIA runtime here, refuses to
// start it, which the worker's failure says). Skipped, with the reason, without the engine or root; never
// under GANTRY_TEST_REQUIRE_ENGINES=1 (CI). No fixed sleeps: every wait looks at the event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type Server } from './helpers/server.ts';
import { type EngineKind, engineSkip, fakeCdiGpu, fakeGpuUuid, startEngine, type TestEngine } from './helpers/engines.ts';
import { exclusive } from './helpers/exclusive.ts';
import { readCreds } from './helpers/data-dir.ts';
import { until } from './helpers/wait.ts';

const BASE = '/gpu-instance/openapi/v1';
/** one CPU and 1 GB a unit: two workers fit a 2-CPU machine */
const PRODUCT = {
  id: 'prd_sl_tiny', name: 'tiny', gpuModel: 'none', cpuPerGpu: 1, memoryPerGpu: 1, diskPerGpu: 10, minRootfs: 1, maxRootfs: 100,
  price: 36_000, spotPrice: 36_000, monthlyPrice: 1_000_000, billingMethods: ['onDemand'],
};
/** the same with a GPU model: the stand-in nvidia-smi's GPU (below) is one */
const GPU_PRODUCT = { ...PRODUCT, id: 'prd_sl_h200', name: 'h200', gpuModel: 'H200' };
const PORT = 8080;
/**
 * The worker: busybox httpd on /www; /www/whoami is the container's hostname (which container
 * answered), /cgi-bin/slow answers after a second (a burst keeps the one slot busy), and the
 * health path /health appears only 4 s after the start: until then the port already serves
 * pages but the probe fails.
 */
const COMMAND = [
  'hostname > /www/whoami',
  'mkdir -p /www/cgi-bin',
  String.raw`printf '#!/bin/sh\nsleep 1\nprintf "Content-Type: text/plain\\r\\n\\r\\nslow\\n"\n' > /www/cgi-bin/slow`,
  'chmod +x /www/cgi-bin/slow',
  `(sleep 4; echo ok > /www/health) & exec httpd -f -p ${PORT} -h /www`,
].join('; ');

interface Res { status: number; body: any; headers: Headers }

async function call(server: Server, token: string, method: string, path: string, body?: unknown): Promise<Res> {
  const res = await fetch(server.url + path, {
    method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text), headers: res.headers };
  } catch {
    return { status: res.status, body: text, headers: res.headers };
  }
}

/** GET http://<address><path>: its status and text; status 0 while nothing answers. */
async function direct(address: string, path: string): Promise<{ status: number; text: string }> {
  try {
    const r = await fetch(`http://${address}${path}`, { signal: AbortSignal.timeout(3000) });
    return { status: r.status, text: await r.text() };
  } catch {
    return { status: 0, text: '' };
  }
}

interface Container { Id: string; Names: string[]; State: string; Labels: Record<string, string> }

/** The engine's containers of endpoint `id` (by its label), any state. */
async function containersOf(engine: TestEngine, id: string): Promise<Container[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`io.gantry.endpoint=${id}`] }));
  const r = await engine.api('GET', `/containers/json?all=1&filters=${filters}`);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  return r.json as Container[];
}

/**
 * Where the worker answers: `<its address on its team's network>:<port>` ('' while not
 * running). A worker is never published on a host port: this host (where Gantry and this test
 * run) reaches it on the engine's bridge, as the router does.
 */
async function workerAt(engine: TestEngine, name: string): Promise<string> {
  const c = (await engine.api('GET', `/containers/${name}/json`)).json;
  if (c?.State?.Status !== 'running') return '';
  const published = Object.values((c.NetworkSettings?.Ports ?? {}) as Record<string, { HostPort?: string }[] | null>).flat().filter((b) => b?.HostPort);
  assert.deepEqual(published, [], 'no port of a worker is published');
  const ip = Object.values((c.NetworkSettings?.Networks ?? {}) as Record<string, { IPAddress?: string }>).find((n) => n.IPAddress)?.IPAddress;
  return ip ? `${ip}:${PORT}` : '';
}

/** Runs `cmd` in the container through the engine's exec API (the test's own hand, not Gantry's). */
async function exec(engine: TestEngine, name: string, cmd: string[]): Promise<void> {
  const made = await engine.api('POST', `/containers/${name}/exec`, { Cmd: cmd, AttachStdout: true, AttachStderr: true });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  const started = await engine.api('POST', `/exec/${made.json.Id}/start`, { Detach: false, Tty: false });
  assert.equal(started.status, 200, JSON.stringify(started.json));
}

for (const kind of ['dockerd', 'podman'] as EngineKind[]) {
  test(`serverless workers are real containers of the docker driver (${kind}): labelled, probed over HTTP, routed to, scaled out and in, replaced, removed, GPUs by UUID`, {
    skip: engineSkip(kind), timeout: 420_000,
  }, async (t) => {
    const release = await exclusive('engines-and-chromium'); // not beside test/terminal-console.engines.test.ts (helpers/exclusive.ts)
    const engine = await startEngine(kind).catch((e: unknown) => { release(); throw e; });
    t.after(async () => {
      try {
        await engine.stop();
      } finally {
        release();
      }
    });
    const dataDir = mkdtempSync(join(tmpdir(), 'gantry-sl-docker-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    // first a CPU-only server (this machine has no GPU, no nvidia-smi): the operator sets the inventory
    const env = {
      GANTRY_DATA_DIR: dataDir, GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: engine.host, GANTRY_DOCKER_NETWORK: 'gantry-sl',
      GANTRY_RECONCILE_INTERVAL_MS: '200',
    };
    let server = await startServer(env, { watchdogMs: 400_000 });
    t.after(() => server.kill('SIGKILL'));
    const creds = readCreds(dataDir);
    const admin = (method: string, path: string, body?: unknown) => call(server, creds.adminToken, method, path, body);
    const tenant = (method: string, path: string, body?: unknown) => call(server, creds.apiKey, method, path, body);
    const ok = (r: Res, what: string) => assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);

    ok(await admin('POST', '/admin/v1/gpu/products', PRODUCT), 'product');
    ok(await admin('POST', '/admin/v1/gpu/products', GPU_PRODUCT), 'GPU product');
    ok(await admin('PUT', `/admin/v1/gpu/products/${GPU_PRODUCT.id}/inventory/cls_local`, { totalGpus: 1 }), 'GPU inventory');
    // units of the product: a CPU worker takes one, as an instance of kind cpu
    ok(await admin('PUT', `/admin/v1/gpu/products/${PRODUCT.id}/inventory/cls_local`, { totalGpus: 4 }), 'inventory');
    ok(await admin('POST', `/admin/v1/teams/${creds.userId}/topups`, { amount: 10_000_000, idempotencyKey: 'sl-docker' }), 'top-up');
    ok(await admin('PUT', '/admin/v1/serverless/limits', { minGPUNum: 0 }), 'limits: CPU workers allowed');

    const createEndpoint = (appName: string, command: string, workerConfig: Record<string, number>, productId = PRODUCT.id) => tenant('POST', `${BASE}/endpoint/create`, {
      endpoint: {
        appName, image: { image: engine.image, command }, ports: [{ port: PORT }], products: [{ id: productId }],
        rootfsSize: 10, policy: { type: 'concurrency', value: 1 },
        healthy: { path: '/health', initialDelay: 0, period: 1, timeout: 2, successThreshold: 1, failureThreshold: 2 },
        workerConfig: { minNum: 1, maxNum: 2, freeTimeout: 1, maxConcurrent: 1, requestTimeout: 60, ...workerConfig },
      },
    });
    const created = await createEndpoint('web', COMMAND, { gpuNum: 0 });
    ok(created, 'endpoint create');
    const id = created.body.id as string;
    const endpoint = async () => (await tenant('GET', `${BASE}/endpoint?id=${id}`)).body.endpoint;
    const liveWorkers = async () => ((await endpoint()).workers as any[]).filter((w) => !['stopped', 'failed', 'exited'].includes(w.state.state));

    // ---- a real container, labelled as the endpoint's worker ----
    let first!: Container;
    await until('the worker\'s container exists', async () => {
      [first] = await containersOf(engine, id) as [Container];
      return first !== undefined;
    }, { limitMs: 60_000, everyMs: 50 });
    const workerId = first.Labels['io.gantry.id']!;
    assert.match(workerId, /^wk-/);
    assert.equal(first.Names[0]!.replace(/^\//, ''), workerId, 'named by the worker id');
    assert.deepEqual(
      [first.Labels['io.gantry.managed'], first.Labels['io.gantry.role'], first.Labels['io.gantry.endpoint'], first.Labels['io.gantry.team'], first.Labels['io.gantry.ports'], first.Labels['io.gantry.gpus']],
      ['true', 'worker', id, creds.userId, String(PORT), '0'],
    );
    const inspected = (await engine.api('GET', `/containers/${workerId}/json`)).json;
    assert.equal(inspected.HostConfig.NanoCpus, 1e9, 'one unit of the product: its CPU per GPU');
    assert.equal(inspected.HostConfig.Memory, 1024 ** 3, 'and its memory per GPU');
    assert.equal(inspected.HostConfig.RestartPolicy.Name, 'no');

    // ---- healthy only by the probe: the port serves pages before /health answers, and the worker is not healthy then ----
    let address = '';
    await until('the container runs and its port serves the test page', async () => {
      address = await workerAt(engine, workerId);
      return address !== '' && (await direct(address, '/index.html')).text === 'gantry-test-page\n';
    }, { limitMs: 60_000, everyMs: 50 });
    // Gantry's view first, then the health path: if /health still fails now, it failed when Gantry was looked at
    const before = await endpoint();
    const healthBefore = await direct(address, '/health');
    assert.equal(healthBefore.status, 404, 'the health path does not answer yet (the worker writes it 4 s after its start)');
    assert.equal(before.state.state, 'initializing');
    assert.deepEqual(before.workers.map((w: any) => [w.id, w.healthy]), [[workerId, false]], 'not healthy while its health path fails');
    assert.notEqual(before.workers[0].state.state, 'running');
    await until('the worker is running and healthy, the endpoint serving', async () => {
      const ep = await endpoint();
      return ep.state.state === 'serving' && ep.workers.some((w: any) => w.id === workerId && w.state.state === 'running' && w.healthy);
    }, { limitMs: 60_000, everyMs: 50 });
    assert.equal((await direct(address, '/health')).status, 200, 'healthy once its health path answers');

    // ---- the router reaches the real worker: its bytes, its container ----
    const key = { authorization: `Bearer ${creds.apiKey}` };
    const routed = await fetch(`${server.url}/serverless/web/whoami`, { headers: key });
    assert.equal(routed.status, 200);
    assert.equal(routed.headers.get('x-gantry-worker-id'), workerId);
    assert.equal(await routed.text(), `${inspected.Config.Hostname}\n`, 'the hostname of the worker\'s own container');
    const page = await fetch(`${server.url}/serverless/web/index.html`, { headers: key });
    assert.deepEqual([page.status, await page.text()], [200, (await direct(address, '/index.html')).text], 'the same bytes as the worker\'s port');
    assert.equal((await fetch(`${server.url}/serverless/web/index.html`)).status, 401, 'an API key is needed');

    // ---- scale out under a burst: a second container, which serves; back in when idle ----
    const servedBy = new Set<string>();
    const answers = new Map<string, number>();
    let loading = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (loading) {
        const r = await fetch(`${server.url}/serverless/web/cgi-bin/slow`, { headers: key });
        const text = await r.text();
        const seen = `${r.status} ${text.slice(0, 60)}`;
        answers.set(seen, (answers.get(seen) ?? 0) + 1);
        if (r.status === 200 && text === 'slow\n') servedBy.add(r.headers.get('x-gantry-worker-id') ?? '');
      }
    });
    try {
      await until('a second worker, made under the burst, answers requests', () => servedBy.size >= 2, { limitMs: 120_000, everyMs: 50 });
    } catch (err) {
      const log = await tenant('GET', `${BASE}/endpoint/log?id=${id}`);
      throw new Error(`${(err as Error).message}\nanswers: ${JSON.stringify([...answers])}\nendpoint: ${JSON.stringify(await endpoint())}\nlog: ${JSON.stringify(log.body).slice(0, 4000)}\ncontainers: ${JSON.stringify(await containersOf(engine, id))}`);
    } finally {
      loading = false;
      await Promise.all(clients);
    }
    const second = [...servedBy].find((w) => w !== workerId)!;
    const both = await containersOf(engine, id);
    assert.deepEqual(both.map((c) => c.Labels['io.gantry.id']).sort(), [workerId, second].sort(), 'two containers, one per worker');
    assert.ok(both.every((c) => c.State === 'running' && c.Labels['io.gantry.role'] === 'worker'));
    await until('idle: back to one worker, the other\'s container removed', async () => {
      const cs = await containersOf(engine, id);
      return cs.length === 1 && (await liveWorkers()).length === 1;
    }, { limitMs: 60_000, everyMs: 100 });
    const [kept] = await containersOf(engine, id);
    const keptId = kept!.Labels['io.gantry.id']!;
    const gone = keptId === workerId ? second : workerId;
    assert.equal((await engine.api('GET', `/containers/${gone}/json`)).status, 404, 'the scaled-in worker\'s container is gone');
    assert.equal((await endpoint()).workers.find((w: any) => w.id === gone)?.state.state, 'stopped');

    // ---- a worker whose health path fails is replaced by a new container ----
    const keptAt = await workerAt(engine, keptId);
    await exec(engine, keptId, ['rm', '-f', '/www/health']);
    assert.equal((await direct(keptAt, '/health')).status, 404);
    await until('the unhealthy worker is failed, its container removed, and a new worker serves', async () => {
      const ep = await endpoint();
      const failed = ep.workers.find((w: any) => w.id === keptId);
      const fresh = ep.workers.find((w: any) => ![workerId, second].includes(w.id) && w.state.state === 'running' && w.healthy);
      return failed?.state.state === 'failed' && fresh !== undefined && ep.state.state === 'serving'
        && (await engine.api('GET', `/containers/${keptId}/json`)).status === 404;
    }, { limitMs: 90_000, everyMs: 100 });
    const ep = await endpoint();
    const failed = ep.workers.find((w: any) => w.id === keptId);
    assert.equal(failed.state.error, 'unhealthy');
    assert.match(failed.state.message, /health checks of \/health failed/);
    const replacement = (await containersOf(engine, id)).map((c) => c.Labels['io.gantry.id']);
    assert.equal(replacement.length, 1);
    assert.ok(![workerId, second].includes(replacement[0]!), 'a new container');
    const again = await fetch(`${server.url}/serverless/web/whoami`, { headers: key });
    assert.equal(again.headers.get('x-gantry-worker-id'), replacement[0]);
    assert.equal(await again.text(), `${(await engine.api('GET', `/containers/${replacement[0]}/json`)).json.Config.Hostname}\n`);

    // ---- deleting the endpoint leaves no container, no marker ----
    ok(await tenant('POST', `${BASE}/endpoint/delete`, { name: id }), 'endpoint delete'); // the interface calls the id `name`
    assert.equal((await fetch(`${server.url}/serverless/web/whoami`, { headers: key })).status, 404, 'the URL goes at once');
    await until('no container of the endpoint is left, and the endpoint is gone', async () => (await containersOf(engine, id)).length === 0
      && (await tenant('GET', `${BASE}/endpoint?id=${id}`)).status !== 200, { limitMs: 60_000, everyMs: 100 });
    const all = (await engine.api('GET', '/containers/json?all=1')).json as Container[];
    assert.deepEqual(all.map((c) => c.Names), [], 'no container at all on the engine');
    await until('no marker volume is left', async () => {
      const vols = (await engine.api('GET', '/volumes')).json?.Volumes ?? [];
      return !vols.some((v: { Name: string }) => v.Name.startsWith('gantry-stop-') || v.Name.startsWith('gantry-delete-'));
    }, { limitMs: 30_000, everyMs: 100 });

    // ---- a worker with gpuNum 1 takes the server's GPU by UUID, through the driver's one path (as an instance) ----
    // Gantry again on the same data dir, now on a server with one GPU: a stand-in nvidia-smi
    // (GANTRY_DOCKER_NVIDIA_SMI) lists an H200 of a made-up UUID, the GPU product's model
    const gpu = fakeGpuUuid();
    const smi = join(dataDir, 'nvidia-smi');
    writeFileSync(smi, `#!/bin/sh\ncase "$*" in *--query-gpu*) printf 'index, uuid, name, memory.total [MiB]\\n0, ${gpu}, NVIDIA H200, 143771 MiB\\n' ;; esac\n`, { mode: 0o755 });
    await server.kill('SIGTERM');
    server = await startServer({ ...env, GANTRY_DOCKER_NVIDIA_SMI: smi }, { watchdogMs: 400_000 });
    t.after(fakeCdiGpu(kind, gpu));
    const gpuCommand = `echo ok > /www/health; echo "$NVIDIA_VISIBLE_DEVICES:$CUDA_VISIBLE_DEVICES:$GANTRY_FAKE_GPU" > /www/gpus; ls /dev/gantry-gpu > /www/dev; exec httpd -f -p ${PORT} -h /www`;
    const gpuEp = await createEndpoint('gpu', gpuCommand, { gpuNum: 1, maxNum: 1 }, GPU_PRODUCT.id);
    ok(gpuEp, 'GPU endpoint create');
    const gpuId = gpuEp.body.id as string;
    const gpuView = async () => (await tenant('GET', `${BASE}/endpoint?id=${gpuId}`)).body.endpoint;
    if (kind === 'podman') {
      // Podman injects the GPU by its CDI name (libpod): the worker runs with it and serves
      await until('the GPU worker serves', async () => (await gpuView()).state.state === 'serving', { limitMs: 60_000, everyMs: 100 });
      const [c] = await containersOf(engine, gpuId);
      assert.deepEqual([c!.Labels['io.gantry.gpus'], c!.Labels['io.gantry.gpu-uuids']], ['1', gpu], 'its GPU recorded on the container');
      const seen = await fetch(`${server.url}/serverless/gpu/gpus`, { headers: key });
      assert.equal(await seen.text(), `${gpu}:0:${gpu}\n`, 'NVIDIA_VISIBLE_DEVICES is its UUID, CUDA_VISIBLE_DEVICES 0, the CDI device\'s env injected');
      assert.equal(await (await fetch(`${server.url}/serverless/gpu/dev`, { headers: key })).text(), '/dev/gantry-gpu\n');
    } else {
      // dockerd here has no NVIDIA runtime: the engine refuses to start a container given the GPU (DeviceRequests, driver nvidia)
      await until('the GPU worker fails to start, saying the engine was asked for an nvidia device', async () => (await gpuView()).workers
        .some((w: any) => w.state.state === 'failed' && /nvidia/.test(w.state.message)), { limitMs: 60_000, everyMs: 100 });
    }
    ok(await tenant('POST', `${BASE}/endpoint/delete`, { name: gpuId }), 'GPU endpoint delete');
    await until('no container is left', async () => ((await engine.api('GET', '/containers/json?all=1')).json as Container[]).length === 0
      && (await tenant('GET', `${BASE}/endpoint?id=${gpuId}`)).status !== 200, { limitMs: 60_000, everyMs: 100 });
  });
}
