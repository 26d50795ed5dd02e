// Images run only for teams the registry authorized (issue 40), against real engines of the
// test's own (test/helpers/engines.ts: dockerd and Podman) and a registry of its own on
// 127.0.0.1 (test/helpers/registry.ts: token auth, a private and a public repository of a
// busybox image). An engine keeps what any team pulled: another team's private image must
// not run without the registry's say, a public one keeps its cache, an image id is no way
// around it, a registry on a private address is refused unless allowed, and what a registry
// answers never reaches the tenant. Skipped with the reason where an engine is missing or the
// test is not root, never under GANTRY_TEST_REQUIRE_ENGINES=1.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { baseSpec } from '../contract.ts';
import type { WorkloadSpec } from '../types.ts';
import { engineSkip, startEngine, type EngineKind, type TestEngine } from '../../../test/helpers/engines.ts';
import { registryImage, TestRegistry } from '../../../test/helpers/registry.ts';
import { until } from '../../../test/helpers/wait.ts';
import { DockerDriver } from './driver.ts';
import type { DockerSettings } from './settings.ts';

const engines = new Map<EngineKind, Promise<TestEngine>>();
function engine(kind: EngineKind): Promise<TestEngine> {
  let e = engines.get(kind);
  if (!e) {
    e = startEngine(kind);
    engines.set(kind, e);
  }
  return e;
}
let registryP: Promise<TestRegistry> | undefined;
function registry(): Promise<TestRegistry> {
  registryP ??= TestRegistry.start().then((r) => {
    r.addUser('bob', 'bob-pw-7Hq'); // team B's
    r.addUser('alice', 'alice-pw-3Zk'); // team A's
    return r;
  });
  return registryP;
}
after(async () => {
  await Promise.all([...engines.values()].map((e) => e.then((x) => x.stop(), () => {})));
  await registryP?.then((r) => r.stop());
});

const NETWORK = 'gantry-images';
const uid = (p = 'ins_im') => `${p}${Math.random().toString(36).slice(2, 10)}`;
const SLEEP = 'sleep 3600';
const WORKER = { endpointId: 'ep_images', health: { path: '/', initialDelay: 0, period: 1, timeout: 1, successThreshold: 1, failureThreshold: 3 } };

for (const kind of ['dockerd', 'podman'] as const) {
  const skip = engineSkip(kind);

  /** A driver (private registries on 127.0.0.1 allowed unless `over` says otherwise), the registry, and the ids made, deleted at the end. */
  async function setup(t: { after(fn: () => Promise<void>): void }, over: Partial<DockerSettings> = {}) {
    const [e, reg] = await Promise.all([engine(kind), registry()]);
    const settings = { host: e.host, network: NETWORK, publishHost: '127.0.0.1', privateRegistries: ['127.0.0.1'], ...over };
    const drivers: DockerDriver[] = [];
    const newDriver = () => {
      const d = new DockerDriver(settings);
      drivers.push(d);
      return d;
    };
    const driver = newDriver();
    const ids: string[] = [];
    t.after(async () => {
      await Promise.all(ids.map((id) => driver.delete(id)));
      await until('the test\'s containers are gone', async () => (await Promise.all(ids.map((id) => driver.describe(id)))).every((o) => o.phase === 'absent'), { limitMs: 20_000, everyMs: 100 });
      await Promise.all(drivers.map((d) => d.close()));
    });
    const spec = (over: Partial<WorkloadSpec>): WorkloadSpec => {
      const id = over.id ?? uid();
      ids.push(id);
      return { ...baseSpec(id, e.image), memoryGb: 0.25, command: SLEEP, ...over, id };
    };
    const settled = async (id: string, d = driver) => {
      await until(`${id} runs or fails`, async () => ['running', 'failed'].includes((await d.describe(id)).phase), { limitMs: 60_000, everyMs: 100 });
      return d.describe(id);
    };
    /** the image id the workload's container runs */
    const imageOf = async (id: string) => (await e.api('GET', `/containers/${id}/json`)).json?.Image as string;
    const cred = (username: 'bob' | 'alice', password = username === 'bob' ? 'bob-pw-7Hq' : 'alice-pw-3Zk') => ({ server: reg.host, username, password });
    return { e, reg, driver, newDriver, spec, settled, imageOf, cred };
  }

  /** `o` failed with image_pull_failed and a message matching `re`; no container was made for it. */
  async function refused(e: TestEngine, id: string, o: { phase: string; reason?: string; message?: string }, re: RegExp) {
    assert.equal(o.phase, 'failed', `${id}: ${JSON.stringify(o)}`);
    assert.equal(o.reason, 'image_pull_failed', `${id}: ${JSON.stringify(o)}`);
    assert.match(o.message ?? '', re);
    assert.equal((await e.api('GET', `/containers/${id}/json`)).status, 404, `${id}: no container`);
  }

  test(`images (${kind}): team B runs its private image with its credential; team A without one, with a wrong one, as a worker or by the image's id is refused although the engine has the image`, { skip }, async (t) => {
    const { e, reg, driver, spec, settled, imageOf, cred } = await setup(t);
    const repo = `teamb/secret-${uid('')}`;
    const secret = registryImage(`${repo}-v1`);
    reg.put(repo, 'v1', secret, { users: ['bob'] });
    const ref = reg.ref(repo, 'v1');
    const b = spec({ teamId: 'team_b', image: ref, imagePullAuth: cred('bob') });
    await driver.create(b);
    assert.equal((await settled(b.id)).phase, 'running');
    assert.equal(await imageOf(b.id), secret.id);
    assert.equal((await e.api('GET', `/images/${ref}/json`)).status, 200, 'the engine has the image');

    const none = spec({ teamId: 'team_a', image: ref });
    const wrong = spec({ teamId: 'team_a', image: ref, imagePullAuth: cred('bob', 'guessed') });
    const worker = spec({ id: uid('wk-im'), teamId: 'team_a', image: ref, worker: WORKER, ports: [{ port: 8080, type: 'http' }] });
    const byId = spec({ teamId: 'team_a', image: secret.id });
    const byHex = spec({ teamId: 'team_a', image: secret.id.slice('sha256:'.length) });
    await Promise.all([none, wrong, worker, byId, byHex].map((s) => driver.create(s)));
    const withoutCredential = new RegExp(`the registry refused ${ref.replace(/[.]/g, '\\.')} without a credential`);
    await refused(e, none.id, await settled(none.id), withoutCredential);
    await refused(e, worker.id, await settled(worker.id), withoutCredential);
    await refused(e, wrong.id, await settled(wrong.id), /the registry refused the team's registry credential/);
    await refused(e, byId.id, await settled(byId.id), /is not an image reference/);
    await refused(e, byHex.id, await settled(byHex.id), /is not an image reference/);
    // the registry was asked each time, by team A's pulls (anonymous, or with the wrong password)
    assert.ok(reg.requestsFor(repo).some((r) => r.path === '/token' && r.user === '!bob'), 'the wrong credential reached the registry');
    assert.ok(reg.requestsFor(repo).some((r) => r.path.endsWith('/manifests/v1') && r.user === ''), 'an anonymous pull reached the registry');
    // a short id is a Docker Hub name once named fully, never a prefix of an image the engine has
    const prefix = spec({ teamId: 'team_a', image: secret.id.slice('sha256:'.length, 'sha256:'.length + 12) });
    await driver.create(prefix);
    await refused(e, prefix.id, await settled(prefix.id), /docker\.io\/library\/[0-9a-f]{12}:latest/);
  });

  test(`images (${kind}): team A with its own credential runs B's image once the registry accepted that credential, without downloading a layer again; a credential the registry stops accepting stops working`, { skip }, async (t) => {
    const { reg, driver, spec, settled, imageOf, cred, e } = await setup(t);
    const repo = `teamb/shared-${uid('')}`;
    const img = registryImage(`${repo}-v1`);
    reg.put(repo, 'v1', img, { users: ['bob', 'alice'] });
    const ref = reg.ref(repo, 'v1');
    const b = spec({ teamId: 'team_b', image: ref, imagePullAuth: cred('bob') });
    await driver.create(b);
    assert.equal((await settled(b.id)).phase, 'running');
    // the layer is every test image's (an engine that has it from another repository does not download it again)
    const downloaded = reg.downloads(img.layer.digest);
    const before = reg.requestsFor(repo).length;
    const a = spec({ teamId: 'team_a', image: ref, imagePullAuth: cred('alice') });
    await driver.create(a);
    assert.equal((await settled(a.id)).phase, 'running');
    assert.equal(await imageOf(a.id), img.id);
    const asked = reg.requestsFor(repo).slice(before);
    assert.ok(asked.some((r) => r.path === '/token' && r.user === 'alice'), `the registry checked alice's credential: ${JSON.stringify(asked)}`);
    assert.ok(asked.some((r) => r.path.endsWith('/manifests/v1') && r.user === 'alice'), 'and answered her the manifest');
    assert.equal(reg.downloads(img.layer.digest), downloaded, 'the layer is not downloaded again');
    assert.ok(!asked.some((r) => r.path.endsWith(`/blobs/${img.layer.digest}`)), 'nor asked for');
    // bob loses access: his team's next workload is refused, though the image is on the engine
    reg.put(repo, 'v1', img, { users: ['alice'] });
    const again = spec({ teamId: 'team_b', image: ref, imagePullAuth: cred('bob') });
    await driver.create(again);
    await refused(e, again.id, await settled(again.id), /the registry refused the team's registry credential/);
  });

  test(`images (${kind}): a public image runs for every team from the engine's cache, also after a restart; once its tag holds private content, a team without a credential is refused`, { skip }, async (t) => {
    const { e, reg, driver, newDriver, spec, settled, imageOf, cred } = await setup(t);
    const repo = `shared/app-${uid('')}`;
    const pub = registryImage(`${repo}-public`);
    reg.put(repo, 'v1', pub, { public: true });
    const ref = reg.ref(repo, 'v1');
    const a = spec({ teamId: 'team_a', image: ref });
    await driver.create(a);
    assert.equal((await settled(a.id)).phase, 'running');
    assert.equal(await imageOf(a.id), pub.id);
    const asked = reg.requestsFor(repo).length;
    const downloaded = reg.downloads(pub.layer.digest);
    const c = spec({ teamId: 'team_c', image: ref });
    await driver.create(c);
    assert.equal((await settled(c.id)).phase, 'running');
    // a restarted Gantry: the record of the anonymous pull is the engine's
    const restarted = newDriver();
    const d = spec({ teamId: 'team_d', image: ref });
    await restarted.create(d);
    assert.equal((await settled(d.id, restarted)).phase, 'running');
    assert.equal(reg.requestsFor(repo).length, asked, 'no registry request once the public image is on the engine');
    assert.equal(reg.downloads(pub.layer.digest), downloaded);
    // the repository turns private and its tag moves to other content, which team B pulls
    const priv = registryImage(`${repo}-private`);
    reg.put(repo, 'v1', priv, { users: ['bob'] });
    const b = spec({ teamId: 'team_b', image: ref, imagePullAuth: cred('bob') });
    await driver.create(b);
    assert.equal((await settled(b.id)).phase, 'running');
    assert.equal(await imageOf(b.id), priv.id, 'the engine\'s tag now names the private content');
    const late = spec({ teamId: 'team_a', image: ref });
    await driver.create(late);
    await refused(e, late.id, await settled(late.id), /without a credential/);
  });

  test(`images (${kind}): a registry on a loopback address is refused unless the operator allows it; what a registry answers never reaches the tenant`, { skip }, async (t) => {
    const strict = await setup(t, { privateRegistries: [] });
    const { e, reg } = strict;
    const repo = `shared/strict-${uid('')}`;
    reg.put(repo, 'v1', registryImage(repo), { public: true });
    const port = reg.host.split(':')[1];
    const loopback = strict.spec({ image: reg.ref(repo, 'v1') });
    const localhost = strict.spec({ image: `localhost:${port}/${repo}:v1` });
    await Promise.all([strict.driver.create(loopback), strict.driver.create(localhost)]);
    for (const s of [loopback, localhost]) {
      await refused(e, s.id, await strict.settled(s.id), /is on a loopback, private or link-local address, which images are not pulled from \(the operator allows such registries with GANTRY_DOCKER_PRIVATE_REGISTRIES\)/);
    }
    assert.deepEqual(reg.requestsFor(repo), [], 'the engine never connected');
    // the operator's local images are never pulled: one the engine lacks is refused
    const missing = strict.spec({ image: 'localhost/gantry-test/none:1' });
    await strict.driver.create(missing);
    await refused(e, missing.id, await strict.settled(missing.id), /one of the operator's images on this server \(GANTRY_DOCKER_LOCAL_IMAGES\), which are never pulled/);

    // allowed: what a server that is no registry answers, or a registry's own error words, are not passed on
    const { driver, spec, settled } = await setup(t);
    const html = `internal-${uid('')}`;
    reg.answerWith(html, { status: 404, contentType: 'text/html', body: `<html><title>SECRET-${html}</title>admin panel</html>` });
    const words = `words-${uid('')}`;
    reg.answerWith(words, { status: 403, contentType: 'application/json', body: JSON.stringify({ errors: [{ code: 'DENIED', message: `SECRET-${words} is the admin password` }] }) });
    const page = spec({ image: reg.ref(html, 'v1') });
    const denied = spec({ image: reg.ref(words, 'v1') });
    const closed = spec({ image: '127.0.0.1:9/shared/none:1' }); // nothing listens on port 9 (discard)
    await Promise.all([page, denied, closed].map((s) => driver.create(s)));
    const p = await settled(page.id);
    await refused(e, page.id, p, new RegExp(`^the registry has no image ${reg.ref(html, 'v1').replace(/[.]/g, '\\.')}$`));
    const dn = await settled(denied.id);
    await refused(e, denied.id, dn, /^the registry refused /);
    for (const o of [p, dn]) assert.doesNotMatch(o.message ?? '', /SECRET|admin|html|title/i);
    await refused(e, closed.id, await settled(closed.id), /^the registry of 127\.0\.0\.1:9\/shared\/none:1 could not be reached$/);
  });
}
