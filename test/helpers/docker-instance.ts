// A Gantry on the docker driver, in this process, against an engine of the test's own
// (helpers/engines.ts), with one team that has a running CPU instance: what the web terminal's
// tests (HTTP and browser) start from. The inventory is written directly: the docker driver's
// own cluster follows the machine's GPUs, and this machine has none. The reconciler runs when
// the test advances the clock.
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './app.ts';
import type { TestEngine } from './engines.ts';
import { createTeam, topup, type Team } from './factories.ts';
import { as } from './http.ts';
import { until } from './wait.ts';
import { setInventory } from '../../src/store/compute.ts';

export const GPU_BASE = '/gpu-instance/openapi/v1';
/** one CPU, 1 GB: a CPU instance (this machine has no GPU) */
export const TINY_PRODUCT = {
  id: 'prd_term_tiny', name: 'tiny', gpuModel: 'none', cpuPerGpu: 1, memoryPerGpu: 1, diskPerGpu: 10, minRootfs: 1, maxRootfs: 10,
  price: 36_000, spotPrice: 36_000, monthlyPrice: 1_000_000, billingMethods: ['onDemand'],
};

export interface DockerApp {
  app: TestApp;
  /** where the app listens (http://127.0.0.1:<port>) */
  base: string;
  team: Team;
}

/** Gantry on the docker driver of `engine` (and settings of `env`), listening on a free port, with a team topped up. */
export async function dockerApp(engine: TestEngine, network: string, env: Record<string, string> = {}): Promise<DockerApp> {
  const app = await buildTestApp({ env: { GANTRY_COMPUTE_DRIVER: 'docker', GANTRY_DOCKER_HOST: engine.host, GANTRY_DOCKER_NETWORK: network, ...env } });
  const base = await app.app.listen({ host: '127.0.0.1', port: 0 });
  app.config.serverless.publicBaseUrl = base;
  const admin = as(app.app, app.creds.adminToken);
  assert.equal((await admin.post('/admin/v1/gpu/products', TINY_PRODUCT)).status, 200);
  await setInventory(app.store.db, { productId: TINY_PRODUCT.id, clusterId: 'cls_local', totalGpus: 4 });
  const team = await createTeam(app.app, app.creds.adminToken);
  await topup(app.app, app.creds.adminToken, team.userId, 10_000_000);
  return { app, base, team };
}

/** Creates a CPU instance of the engine's test image running `sleep 3600`; resolves with its id once it runs. */
export async function runningInstance(d: DockerApp, engine: TestEngine, name: string): Promise<string> {
  const owner = as(d.app.app, d.team.owner.apiKey);
  const created = await owner.post(`${GPU_BASE}/gpu/instance/create`, {
    name, productId: TINY_PRODUCT.id, gpuNum: 1, rootfsSize: 1, imageUrl: engine.image, kind: 'cpu', clusterId: 'cls_local', command: 'sleep 3600',
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const id = created.body.id as string;
  await until(`${id} runs`, async () => {
    d.app.clock.advance(200);
    await d.app.services.compute.reconcile();
    return (await owner.get(`${GPU_BASE}/gpu/instance`, { instanceId: id })).body.status === 'running';
  }, { limitMs: 60_000, everyMs: 100 });
  return id;
}
