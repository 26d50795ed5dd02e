// Another team's private image, through the API (issue 40): Gantry on the docker driver
// (in this process, reconciled by the test) against an engine and a registry of the test's
// own (helpers/engines.ts, helpers/registry.ts). Team B saves its registry credential and runs
// its private image; team A names the same image without a credential and its instance ends
// exited, its statusError the refusal in Gantry's words (naming the image and what a private
// image needs), although the engine has the image. On dockerd and on Podman. Skipped with the
// reason without the engines or root; never under GANTRY_TEST_REQUIRE_ENGINES=1.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { engineSkip, startEngine } from './helpers/engines.ts';
import { dockerApp, GPU_BASE, TINY_PRODUCT } from './helpers/docker-instance.ts';
import { createTeam, topup } from './helpers/factories.ts';
import { as } from './helpers/http.ts';
import { registryImage, TestRegistry } from './helpers/registry.ts';
import { until } from './helpers/wait.ts';

let registryP: Promise<TestRegistry> | undefined;
after(() => registryP?.then((r) => r.stop()));

for (const kind of ['dockerd', 'podman'] as const) {
  test(`docker driver (${kind}): team A's instance of team B's private image, without a credential, ends exited with the refusal as its statusError`, {
    skip: engineSkip(kind), timeout: 300_000,
  }, async (t) => {
    registryP ??= TestRegistry.start();
    const registry = await registryP;
    registry.addUser('bob', 'bob-api-pw-4Rt');
    const engine = await startEngine(kind);
    t.after(() => engine.stop());
    const d = await dockerApp(engine, `gantry-images-${kind}`, { GANTRY_DOCKER_PRIVATE_REGISTRIES: '127.0.0.1' });
    t.after(() => d.app.close());
    const repo = `teamb/api-${kind}`;
    registry.put(repo, 'v1', registryImage(repo), { users: ['bob'] });
    const image = registry.ref(repo, 'v1');
    const teamB = as(d.app.app, d.team.owner.apiKey);
    const a = await createTeam(d.app.app, d.app.creds.adminToken);
    await topup(d.app.app, d.app.creds.adminToken, a.userId, 10_000_000);
    const teamA = as(d.app.app, a.owner.apiKey);

    const saved = await teamB.post(`${GPU_BASE}/repository/auth/save`, { name: 'team B registry', username: 'bob', password: 'bob-api-pw-4Rt' });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    const create = async (client: typeof teamA, name: string, extra: Record<string, string> = {}) => {
      const r = await client.post(`${GPU_BASE}/gpu/instance/create`, {
        name, productId: TINY_PRODUCT.id, gpuNum: 1, rootfsSize: 1, imageUrl: image, kind: 'cpu', clusterId: 'cls_local', command: 'sleep 3600', ...extra,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.id as string;
    };
    const settled = async (client: typeof teamA, id: string) => {
      let body: any;
      await until(`${id} runs or has exited`, async () => {
        d.app.clock.advance(200);
        await d.app.services.compute.reconcile();
        body = (await client.get(`${GPU_BASE}/gpu/instance`, { instanceId: id })).body;
        return body.status === 'running' || body.status === 'exited';
      }, { limitMs: 60_000, everyMs: 100 });
      return body;
    };

    const b = await settled(teamB, await create(teamB, 'b-private', { imageAuthId: saved.body.id }));
    assert.equal(b.status, 'running', JSON.stringify(b.statusError));
    assert.equal((await engine.api('GET', `/images/${image}/json`)).status, 200, 'the engine has the image');

    const refused = await settled(teamA, await create(teamA, 'a-no-credential'));
    assert.equal(refused.status, 'exited');
    assert.deepEqual(refused.statusError, {
      state: 'image_pull_failed',
      message: `image pull failed: the registry refused ${image} without a credential: a private image needs the team's registry credential (imageAuthId, or an endpoint's authId)`,
    });
    // team B's credential is not team A's to name
    const borrowed = await teamA.post(`${GPU_BASE}/gpu/instance/create`, {
      name: 'a-borrowed', productId: TINY_PRODUCT.id, gpuNum: 1, rootfsSize: 1, imageUrl: image, kind: 'cpu', clusterId: 'cls_local', imageAuthId: saved.body.id,
    });
    assert.equal(borrowed.status, 400, JSON.stringify(borrowed.body));
    assert.equal(borrowed.body.reason, 'RESOURCE_NOT_FOUND');
  });
}
