// Isolation between containers on one server (issue 40, items 4-7; docs/security.md), against
// a dockerd and a Podman of the test's own (test/helpers/engines.ts), each checked in what the
// engine made and by what a container can and cannot do:
// - an image's `io.gantry.*` labels never reach Gantry's records: an image forging a GPU hold
//   (and a team, a disk limit) run as a CPU workload holds no GPU and shows no GPU readings,
//   before and after a restart of the driver; nor does a container whose label alone says so;
// - a network per team: a container of one team cannot connect to another team's (a worker's
//   included), its own team's it can; a worker's port is never published; a team's network
//   goes with its last container;
// - every capability dropped but a documented few (no raw sockets: ping, arping; no mknod), no
//   new privileges (a setuid-root su run by a user stays the user), the default seccomp
//   profile, a PID limit that stops a (bounded) fork bomb;
// - disk limits: a root filesystem and a network storage volume written past their sizes are
//   stopped, `failed` `disk_limit_exceeded` naming the limit; the engines here (overlay on
//   ext4) refuse a storage quota, so the watchdog (enforceLimits) is what holds them.
// dockerd runs with its firewall, in a network namespace of its own (engines.ts `firewall`):
// without it nothing keeps bridge networks apart. Skipped with the reason without the engines
// or root; never under GANTRY_TEST_REQUIRE_ENGINES=1 (CI).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseSpec } from '../contract.ts';
import type { WorkloadSpec } from '../types.ts';
import { engineSkip, execIn, fakeCdiGpu, fakeGpuUuid, startEngine, type EngineKind, type TestEngine } from '../../../test/helpers/engines.ts';
import { until } from '../../../test/helpers/wait.ts';
import { LABEL } from './container.ts';
import { DockerDriver } from './driver.ts';
import type { DockerSettings } from './settings.ts';

const NETWORK = 'gantry-iso';
const dir = mkdtempSync(join(tmpdir(), 'gantry-iso-'));
const engines = new Map<EngineKind, Promise<TestEngine>>();
function engine(kind: EngineKind): Promise<TestEngine> {
  let e = engines.get(kind);
  if (!e) {
    e = startEngine(kind, { firewall: kind === 'dockerd' });
    engines.set(kind, e);
  }
  return e;
}
after(async () => {
  await Promise.all([...engines.values()].map((e) => e.then((x) => x.stop(), () => {})));
  rmSync(dir, { recursive: true, force: true });
});

const uid = (p = 'ins_iso') => `${p}${Math.random().toString(36).slice(2, 10)}`;
const httpd = 'httpd -f -p 8080 -h /www';
/** an HTTP request from inside a container (busybox nc; its wget is no use here): the answer's first line, or nc's complaint */
const httpFrom = (ip: string) => ['sh', '-c', `printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | nc -w 3 ${ip} 8080 2>&1 | head -1`];

for (const kind of ['dockerd', 'podman'] as const) {
  const skip = engineSkip(kind);

  /** Drivers on the engine (closed at the end) and the workloads they made (deleted at the end). */
  async function setup(t: { after(fn: () => Promise<void>): void }, settings: Partial<DockerSettings> = {}) {
    const e = await engine(kind);
    const drivers: DockerDriver[] = [];
    const driver = (over: Partial<DockerSettings> = {}) => {
      const d = new DockerDriver({ host: e.host, network: NETWORK, publishHost: '127.0.0.1', ...settings, ...over });
      drivers.push(d);
      return d;
    };
    const main = driver();
    const ids: string[] = [];
    t.after(async () => {
      await Promise.all(ids.map((id) => main.delete(id)));
      await until('the test\'s containers are gone', async () => (await Promise.all(ids.map((id) => main.describe(id)))).every((o) => o.phase === 'absent'), { limitMs: 30_000, everyMs: 100 });
      await Promise.all(drivers.map((d) => d.close()));
    });
    const spec = (over: Partial<WorkloadSpec> = {}): WorkloadSpec => {
      const id = over.id ?? uid();
      ids.push(id);
      return { ...baseSpec(id, e.image), memoryGb: 0.25, command: 'sleep 3600', ...over, id };
    };
    const phase = async (id: string, want: string, d: DockerDriver = main) => {
      await until(`${id} is ${want}`, async () => (await d.describe(id)).phase === want, { limitMs: 30_000, everyMs: 100 });
      return d.describe(id);
    };
    const inspect = async (id: string) => (await e.api('GET', `/containers/${id}/json`)).json;
    /** the one network it is on (Podman's inspect says NetworkMode "bridge" for every bridge network) */
    const networkOf = async (id: string) => {
      const nets = Object.keys((await inspect(id)).NetworkSettings.Networks ?? {});
      assert.equal(nets.length, 1, `${id} is on one network: ${nets.join(', ')}`);
      return nets[0]!;
    };
    const ipOf = async (id: string) => (await inspect(id)).NetworkSettings.Networks[await networkOf(id)].IPAddress as string;
    return { e, driver: main, newDriver: driver, spec, phase, inspect, networkOf, ipOf };
  }

  test(`isolation (${kind}): an image's io.gantry.* labels never reach Gantry's records; a forged GPU hold holds no GPU, before and after a driver restart`, { skip, timeout: 180_000 }, async (t) => {
    const gpu = fakeGpuUuid();
    t.after(fakeCdiGpu(kind, gpu));
    // a stand-in nvidia-smi reading that GPU busy: a container that held it would show its readings
    const smi = join(dir, `nvidia-smi-${kind}`);
    writeFileSync(smi, `#!/bin/sh\nprintf 'index, uuid, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%%]\\n0, ${gpu}, NVIDIA H200, 143771 MiB, 20085 MiB, 100 %%\\n'\n`);
    chmodSync(smi, 0o755);
    const { e, driver, newDriver, spec, phase, inspect, networkOf } = await setup(t, { gpus: [gpu], nvidiaSmi: smi, gpuMode: 'nvidia' });
    // the hostile image, built here like the test image: every label Gantry reads, forged
    const forged = {
      [LABEL.managed]: 'true', [LABEL.gpuUuids]: gpu, [LABEL.gpus]: '1', [LABEL.team]: 'usr_victim', [LABEL.role]: 'worker', [LABEL.endpoint]: 'ep_victim',
      [LABEL.rootfsGb]: '100000', [LABEL.volumeGb]: '{"/":100000}', 'io.gantry.future-label': 'forged',
    };
    const image = await buildImage(e, `localhost/forged/${kind}:1`, forged);
    const cpu = spec({ image, gpuNum: 0, rootfsGb: 3 });
    await driver.create(cpu);
    await phase(cpu.id, 'running');
    const gpuWorkload = async (d: DockerDriver) => {
      const g = spec({ gpuNum: 1 });
      await d.create(g);
      await until(`${g.id} is made`, async () => !['absent', 'creating', 'pulling'].includes((await d.describe(g.id)).phase), { limitMs: 30_000, everyMs: 50 });
      const o = await d.describe(g.id);
      assert.notEqual(o.reason, 'insufficient_resource', `the GPU is free for a workload that asks it: ${JSON.stringify(o)}`);
      assert.equal((await inspect(g.id)).Config.Labels[LABEL.gpuUuids], gpu);
      return g;
    };
    const noGpuReadings = async (d: DockerDriver, ids: string[]) => {
      const usage = await d.usage();
      for (const id of ids) assert.deepEqual(usage.find((u) => u.id === id)?.gpus, [], `${id} shows no GPU's readings`);
    };
    await noGpuReadings(driver, [cpu.id]);
    const g1 = await gpuWorkload(driver);
    await driver.delete(g1.id);
    await phase(g1.id, 'absent');

    // a container whose label alone claims the GPU (as one an older Gantry made from that image: its env says void, no device asked)
    const oldStyle = uid('ins_old');
    const made = await e.api('POST', `/containers/create?name=${oldStyle}`, {
      Image: image, Cmd: ['sleep', '3600'], Env: ['NVIDIA_VISIBLE_DEVICES=void'], Labels: { ...forged, [LABEL.id]: oldStyle },
      HostConfig: { NetworkMode: await networkOf(cpu.id) },
    });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    assert.equal((await e.api('POST', `/containers/${oldStyle}/start`)).status, 204);
    t.after(async () => {
      await e.api('DELETE', `/containers/${oldStyle}?force=1`);
    });
    // Gantry restarted: a new driver reads who holds what from the engine
    const again = newDriver();
    await noGpuReadings(again, [cpu.id, oldStyle]);
    const g2 = await gpuWorkload(again);
    if (kind === 'podman') {
      // a workload with GPUs goes through libpod's create on Podman: confined the same
      await phase(g2.id, 'running', again);
      const status = (await execIn(e, g2.id, ['cat', '/proc/self/status'])).output;
      assert.match(status, /^CapEff:\s+00000000000004fb$/m);
      assert.match(status, /^NoNewPrivs:\s+1$/m);
      assert.match(status, /^Seccomp:\s+2$/m);
      assert.equal((await inspect(g2.id)).HostConfig.PidsLimit, 4096);
    }

    const labels = (await inspect(cpu.id)).Config.Labels as Record<string, string>;
    const own = Object.fromEntries(Object.entries(labels).filter(([k]) => k.startsWith('io.gantry.')));
    assert.deepEqual(own, {
      [LABEL.managed]: 'true', [LABEL.id]: cpu.id, [LABEL.role]: 'instance', [LABEL.endpoint]: '', [LABEL.cluster]: 'cls_local', [LABEL.team]: 'usr_contract',
      [LABEL.gpus]: '0', [LABEL.gpuUuids]: '', [LABEL.ports]: '8080', [LABEL.portTypes]: 'http', [LABEL.rootfsGb]: '3', [LABEL.volumeGb]: '{}',
      'io.gantry.future-label': '',
    }, 'every io.gantry.* label is Gantry\'s own value, the image\'s unknown one emptied');
  });

  test(`isolation (${kind}): a network per team: no connection between two teams' containers (workers included), a worker never published, a team's network gone with its last container`, { skip, timeout: 180_000 }, async (t) => {
    const { e, driver, spec, phase, inspect, networkOf, ipOf } = await setup(t);
    const teamA = uid('usr_a');
    const teamB = uid('usr_b');
    const worker = { endpointId: 'ep_iso', health: { path: '/', initialDelay: 0, period: 1, timeout: 1, successThreshold: 1, failureThreshold: 3 } };
    const a1 = spec({ teamId: teamA, command: httpd });
    const a2 = spec({ teamId: teamA, command: httpd });
    const b1 = spec({ teamId: teamB, command: httpd });
    const bw = spec({ id: uid('wk-iso'), teamId: teamB, command: httpd, worker });
    for (const s of [a1, a2, b1, bw]) await driver.create(s);
    for (const s of [a1, a2, b1, bw]) await phase(s.id, 'running');
    const [ipA2, ipB1, ipBw] = [await ipOf(a2.id), await ipOf(b1.id), await ipOf(bw.id)];
    // its own team's container it reaches (the probe works); another team's, instance or worker, it does not
    await until('httpd answers in a2', async () => (await execIn(e, a1.id, httpFrom(ipA2))).output.startsWith('HTTP/1.'), { limitMs: 15_000, everyMs: 200 });
    for (const [from, ip, what] of [[a1.id, ipB1, 'team B\'s instance'], [a1.id, ipBw, 'team B\'s worker'], [b1.id, ipA2, 'team A\'s instance']] as const) {
      const r = await execIn(e, from, httpFrom(ip));
      assert.doesNotMatch(r.output, /^HTTP\//, `${from} reached ${what} at ${ip}: ${r.output}`);
    }
    assert.match((await execIn(e, bw.id, httpFrom(ipB1))).output, /^HTTP\/1\.[01] 200/, 'the worker and its team\'s instance share a network');
    const [netA, netB] = [await networkOf(a1.id), await networkOf(b1.id)];
    assert.deepEqual([netA, netB], [`${NETWORK}-${teamA}`, `${NETWORK}-${teamB}`]);
    assert.equal(await networkOf(a2.id), netA);
    assert.equal(await networkOf(bw.id), netB, 'a worker on its team\'s network');
    // the worker: no host port, its address the container's on the team network
    const w = await inspect(bw.id);
    const unbound = (ports: Record<string, unknown[] | null> | null) => Object.values(ports ?? {}).every((b) => !b || b.length === 0);
    assert.ok(unbound(w.HostConfig.PortBindings), `no port binding asked: ${JSON.stringify(w.HostConfig.PortBindings)}`);
    assert.ok(unbound(w.NetworkSettings.Ports), `none published: ${JSON.stringify(w.NetworkSettings.Ports)}`);
    assert.equal(await driver.address(bw.id), `${ipBw}:8080`);
    // an instance's http port is still published on the publish host
    assert.match((await driver.address(a1.id)) ?? '', /^127\.0\.0\.1:\d+$/);
    // team A's last container gone: its network too; team B's stays
    for (const s of [a1, a2]) await driver.delete(s.id);
    for (const s of [a1, a2]) await phase(s.id, 'absent');
    await until(`${netA} is removed`, async () => (await e.api('GET', `/networks/${netA}`)).status === 404, { limitMs: 15_000, everyMs: 100 });
    assert.equal((await e.api('GET', `/networks/${netB}`)).status, 200);
    // and made again for the team's next container
    const a3 = spec({ teamId: teamA });
    await driver.create(a3);
    await phase(a3.id, 'running');
    assert.equal(await networkOf(a3.id), netA);
  });

  test(`isolation (${kind}): capabilities dropped to a documented few, no new privileges, the default seccomp profile, a PID limit that stops a fork bomb`, { skip, timeout: 180_000 }, async (t) => {
    const { e, driver, spec, phase, inspect } = await setup(t, { pidsLimit: 64 });
    const c = spec();
    const box = spec();
    await driver.create(c);
    await driver.create(box);
    await phase(c.id, 'running');
    // what the container's processes have: CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID NET_BIND_SERVICE = bits 0 1 3 4 5 6 7 10
    const status = (await execIn(e, c.id, ['cat', '/proc/self/status'])).output;
    assert.match(status, /^CapEff:\s+00000000000004fb$/m);
    assert.match(status, /^CapBnd:\s+00000000000004fb$/m, 'nor can a process get the others back');
    assert.match(status, /^NoNewPrivs:\s+1$/m);
    assert.match(status, /^Seccomp:\s+2$/m, 'a seccomp filter is on');
    const ping = await execIn(e, c.id, ['ping', '-c', '1', '-W', '1', '127.0.0.1']);
    assert.notEqual(ping.code, 0);
    assert.match(ping.output, /permission denied/, 'no raw sockets (NET_RAW)');
    assert.match((await execIn(e, c.id, ['arping', '-c', '1', '-w', '1', '-I', 'eth0', '10.0.0.1'])).output, /Operation not permitted/, 'no packet sockets to forge ARP on the bridge');
    assert.match((await execIn(e, c.id, ['mknod', '/tmp/mem', 'c', '1', '1'])).output, /Operation not permitted/, 'no device nodes (MKNOD)');
    // setuid: a root-owned setuid su, run by an unprivileged user, does not become root
    const prep = await execIn(e, c.id, ['sh', '-c', "echo 'root::0:0:root:/:/bin/sh' > /etc/passwd && mkdir -p /tmp/s && cp /bin/busybox /tmp/s/busybox && chmod 4755 /tmp/s/busybox"]);
    assert.equal(prep.code, 0, prep.output);
    const su = await execIn(e, c.id, ['/tmp/s/busybox', 'su', '-c', 'id -u', 'root'], '1000:1000');
    assert.notEqual(su.code, 0, `su gave root: ${su.output}`);
    assert.doesNotMatch(su.output, /^0$/m);
    assert.equal((await execIn(e, c.id, ['id', '-u'], '1000:1000')).output.trim(), '1000');
    // a fork bomb (bounded at 500 processes, so that it cannot hurt the host even without a limit): it stops at the limit
    await phase(box.id, 'running');
    const bomb = await execIn(e, box.id, ['sh', '-c', 'i=0; while [ $i -lt 500 ]; do sleep 600 </dev/null >/dev/null 2>&1 & i=$((i+1)); done; echo "forked $i"']);
    assert.match(bomb.output, /can't fork/, bomb.output);
    assert.doesNotMatch(bomb.output, /forked 500/);
    const pids = (await e.api('GET', `/containers/${box.id}/stats?stream=false`)).json.pids_stats;
    assert.ok(pids.current <= 64 && pids.current >= 32, `the bomb's processes: ${JSON.stringify(pids)}`);
    assert.equal(spawnSync('/bin/true').status, 0, 'the host still forks');
    assert.equal((await driver.describe(box.id)).phase, 'running', 'the container itself lives on');
    // what the engine was asked
    const h = (await inspect(c.id)).HostConfig;
    assert.deepEqual([h.Privileged, h.PidsLimit], [false, 64]);
    assert.ok(h.SecurityOpt.includes('no-new-privileges'), JSON.stringify(h.SecurityOpt));
    assert.ok(!h.SecurityOpt.some((o: string) => /seccomp[=:]unconfined/.test(o)), 'the engine\'s default seccomp profile, not unconfined');
  });

  test(`isolation (${kind}): a root filesystem and a network storage volume written past their sizes are stopped, failed disk_limit_exceeded naming the limit`, { skip, timeout: 180_000 }, async (t) => {
    const { e, driver, spec, phase, inspect } = await setup(t);
    const storageId = uid('nst_');
    t.after(async () => {
      await e.api('DELETE', `/volumes/gantry-ns-${storageId}`);
    });
    const small = 16 / 1024; // GiB: 16 MiB
    const write = (path: string, mib: number) => `sh -c 'dd if=/dev/zero of=${path} bs=1M count=${mib} && sync && echo written; exec sleep 3600'`;
    const rootfs = spec({ rootfsGb: small, command: write('/fill', 24) });
    const volume = spec({ rootfsGb: 1, command: write('/mnt/s/fill', 24), volumes: [{ type: 'network', size: String(small), id: storageId, mountPath: '/mnt/s' }] });
    const within = spec({ rootfsGb: small, command: write('/fill', 4) });
    for (const s of [rootfs, volume, within]) await driver.create(s);
    for (const s of [rootfs, volume, within]) {
      await until(`${s.id} wrote`, async () => (await driver.logs(s.id, 0, 100)).some((l) => l.line === 'written'), { limitMs: 60_000, everyMs: 200 });
    }
    // overlay on ext4 keeps no quota: the engine refused it at the first create, the driver made it without
    assert.ok(!(await inspect(rootfs.id)).HostConfig.StorageOpt?.size, 'no storage quota on this engine');
    const breaches = await driver.enforceLimits();
    assert.deepEqual(breaches.map((b) => b.id).sort(), [rootfs.id, volume.id].sort(), JSON.stringify(breaches));
    const r = await phase(rootfs.id, 'failed');
    assert.equal(r.reason, 'disk_limit_exceeded');
    assert.match(r.message ?? '', /^its root filesystem holds 2\d(\.\d)? MiB written, over its rootfsSize of 16 MiB$/);
    const v = await phase(volume.id, 'failed');
    assert.equal(v.reason, 'disk_limit_exceeded');
    assert.equal(v.message, `the volume at /mnt/s (network storage ${storageId}) holds 24 MiB, over its size of 16 MiB`);
    assert.equal((await driver.describe(within.id)).phase, 'running', 'within its limit: left alone');
    assert.deepEqual(await driver.enforceLimits(), [], 'those stopped are not running');
    // started again (its data kept), it runs: the limit stopped that run; the next check stops it again while it is over
    await driver.start(rootfs);
    await phase(rootfs.id, 'running');
    await until('the new run wrote again', async () => (await driver.logs(rootfs.id, 0, 100)).filter((l) => l.line === 'written').length === 2, { limitMs: 60_000, everyMs: 200 });
    // the next check: a walk rests 3× its own time after it (enforceLimits), so under load the first ask may come too soon
    let again: string[] = [];
    await until('the next check stops it', async () => {
      again = (await driver.enforceLimits()).map((b) => b.id);
      return again.length > 0;
    }, { limitMs: 60_000, everyMs: 200 });
    assert.deepEqual(again, [rootfs.id]);
    await phase(rootfs.id, 'failed');
  });
}

/** An image of the test image with `labels` (the engine's commit, like `docker build` with LABEL lines). */
async function buildImage(e: TestEngine, ref: string, labels: Record<string, string>): Promise<string> {
  const name = uid('build');
  const made = await e.api('POST', `/containers/create?name=${name}`, { Image: e.image, Cmd: ['true'] });
  assert.equal(made.status, 201, JSON.stringify(made.json));
  // one LABEL line each (Podman reads one label of a line)
  const changes = Object.entries(labels).map(([k, v]) => `changes=${encodeURIComponent(`LABEL ${k}=${JSON.stringify(v)}`)}`).join('&');
  const [repo, tag] = [ref.slice(0, ref.lastIndexOf(':')), ref.slice(ref.lastIndexOf(':') + 1)];
  const committed = await e.api('POST', `/commit?container=${name}&repo=${encodeURIComponent(repo)}&tag=${tag}&${changes}`, {});
  assert.equal(committed.status, 201, JSON.stringify(committed.json));
  await e.api('DELETE', `/containers/${name}?force=1`);
  const image = await e.api('GET', `/images/${ref}/json`);
  assert.equal(image.json.Config.Labels[LABEL.gpuUuids], labels[LABEL.gpuUuids], 'the image carries the forged labels');
  return ref;
}
