import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseSpec } from '../contract.ts';
import { addressFromPod, containerCommand, markerManifest, objectName, observedFromPod, podManifest, portsFromPod, pullSecretManifest, readinessProbe, serviceManifest, storageClaimName, workloadIdOf } from './manifests.ts';
import type { WorkloadSpec } from '../types.ts';

const spec: WorkloadSpec = {
  ...baseSpec('ins_01abc'), image: 'ghcr.io/acme/train:2', gpuNum: 2, cpuNum: 32, memoryGb: 124, rootfsGb: 100,
  entrypoint: 'python -m server', command: '--port 8000', envs: [{ key: 'MODEL', value: 'x' }],
  ports: [{ port: 8000, type: 'http' }, { port: 3306, type: 'tcp' }],
  nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-GeForce-RTX-4090' },
  imagePullAuth: { server: 'ghcr.io', username: 'bob', password: 's3cret' },
  volumes: [{ type: 'network', size: '', id: 'nst_01data0000000000000000', mountPath: '/data' }, { type: 'local', size: '30', id: '', mountPath: '/scratch' }],
};

test('pod: GPU limit, node selector, pull secret, command/entrypoint/envs, ports, volumes', () => {
  const p = podManifest(spec, 'gantry');
  assert.equal(p.metadata.name, 'gi-ins-01abc');
  assert.equal(p.metadata.namespace, 'gantry');
  const c = p.spec.containers[0]!;
  assert.equal(c.image, 'ghcr.io/acme/train:2');
  assert.equal(c.resources.limits['nvidia.com/gpu'], '2');
  assert.equal(c.resources.limits.cpu, '32');
  assert.equal(c.resources.limits.memory, '124Gi');
  assert.equal(c.resources.limits['ephemeral-storage'], '100Gi');
  assert.deepEqual(p.spec.nodeSelector, { 'nvidia.com/gpu.product': 'NVIDIA-GeForce-RTX-4090' });
  assert.deepEqual(p.spec.imagePullSecrets, [{ name: 'gi-ins-01abc-pull' }]);
  assert.deepEqual(c.command, ['/bin/sh', '-c', 'python -m server --port 8000']);
  assert.deepEqual(c.env, [{ name: 'MODEL', value: 'x' }]);
  assert.deepEqual(c.ports.map((x) => x.containerPort), [8000, 3306]);
  assert.deepEqual(p.spec.volumes, [{ name: 'vol-0', persistentVolumeClaim: { claimName: 'gns-nst-01data0000000000000000' } }, { name: 'vol-1', emptyDir: { sizeLimit: '30Gi' } }]);
  assert.deepEqual(c.volumeMounts, [{ name: 'vol-0', mountPath: '/data' }, { name: 'vol-1', mountPath: '/scratch' }]);
  assert.equal(p.spec.restartPolicy, 'Never');
  // pulled at every start with the pod's own secret: a node's cache is no team's credential
  assert.equal(c.imagePullPolicy, 'Always');
  assert.equal(podManifest({ ...spec, imagePullAuth: undefined }, 'ns').spec.containers[0]!.imagePullPolicy, 'Always');
  // a CPU instance asks for no GPU; no credential, no pull secret; no command keeps the image's
  const cpu = podManifest({ ...spec, gpuNum: 0, imagePullAuth: undefined, entrypoint: '', command: '' }, 'ns');
  assert.equal(cpu.spec.containers[0]!.resources.limits['nvidia.com/gpu'], undefined);
  assert.equal(cpu.spec.imagePullSecrets, undefined);
  assert.equal(cpu.spec.containers[0]!.command, undefined);
  assert.deepEqual(containerCommand({ entrypoint: '', command: 'sleep 1' }), { command: ['/bin/sh', '-c', 'sleep 1'] });
});

test('service exposes the ports; pull secret is a dockerconfigjson; the marker never holds the password', () => {
  const s = serviceManifest(spec, 'gantry')!;
  assert.deepEqual(s.spec.ports.map((p) => [p.port, p.targetPort]), [[8000, 8000], [3306, 3306]]);
  assert.deepEqual(s.spec.selector, { 'gantry.io/instance': 'gi-ins-01abc' });
  assert.equal(serviceManifest({ ...spec, ports: [] }, 'gantry'), undefined);
  const sec = pullSecretManifest(spec, 'gantry')!;
  assert.equal(sec.type, 'kubernetes.io/dockerconfigjson');
  const cfg = JSON.parse(Buffer.from(sec.data['.dockerconfigjson'], 'base64').toString());
  assert.equal(cfg.auths['ghcr.io'].username, 'bob');
  assert.equal(Buffer.from(cfg.auths['ghcr.io'].auth, 'base64').toString(), 'bob:s3cret');
  assert.ok(!JSON.stringify(markerManifest(spec, 'gantry')).includes('s3cret'));
  assert.equal(objectName('ins_ABC_def'), 'gi-ins-abc-def');
});

test('state is read back from pod phase and container states', () => {
  assert.equal(observedFromPod(undefined, false).phase, 'absent');
  assert.equal(observedFromPod(undefined, true).phase, 'stopped');
  assert.equal(observedFromPod({ metadata: { deletionTimestamp: new Date() } }, true).phase, 'stopping');
  assert.equal(observedFromPod({ metadata: { deletionTimestamp: new Date() } }, false).phase, 'deleting');
  assert.equal(observedFromPod({ status: { phase: 'Pending' } }, true).phase, 'creating');
  assert.equal(observedFromPod({ status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] } }, true).phase, 'pulling');
  const unsched = observedFromPod({ status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes: Insufficient nvidia.com/gpu' }] } }, true);
  assert.deepEqual([unsched.phase, unsched.reason], ['failed', 'insufficient_resource']);
  assert.match(unsched.message!, /Insufficient nvidia.com\/gpu/);
  const pull = observedFromPod({ status: { phase: 'Pending', containerStatuses: [{ state: { waiting: { reason: 'ImagePullBackOff', message: 'back-off pulling' } } }] } }, true);
  assert.deepEqual([pull.phase, pull.reason], ['failed', 'image_pull_failed']);
  // the runtime's words (they quote the registry's answer) are never passed on: Gantry says what happened
  const pod = (reason: string, message: string, secrets = false) => observedFromPod({
    spec: { containers: [{ image: '10.0.0.5/team/app:1' }], ...(secrets ? { imagePullSecrets: [{}] } : {}) },
    status: { phase: 'Pending', containerStatuses: [{ state: { waiting: { reason, message } } }] },
  }, true);
  const body = 'failed to pull and unpack image "10.0.0.5/team/app:1": failed to resolve reference: unexpected status from GET request to http://10.0.0.5/v2/team/app/manifests/1: 403 Forbidden: <html>SECRET admin page</html>';
  assert.deepEqual(pod('ErrImagePull', body), { phase: 'failed', reason: 'image_pull_failed', message: 'the registry refused 10.0.0.5/team/app:1 without a credential: a private image needs the team\'s registry credential (imageAuthId, or an endpoint\'s authId)' });
  assert.equal(pod('ErrImagePull', body, true).message, 'the registry refused the team\'s registry credential for 10.0.0.5/team/app:1');
  assert.equal(pod('ErrImagePull', 'rpc error: code = NotFound desc = failed to resolve reference "10.0.0.5/team/app:1": 10.0.0.5/team/app:1: not found').message, 'the registry has no image 10.0.0.5/team/app:1');
  assert.equal(pod('InvalidImageName', 'Failed to apply default image tag "Bad Name": couldn\'t parse image reference').message, '"10.0.0.5/team/app:1" is not an image reference');
  const at = '2026-11-15T12:00:00Z';
  const run = observedFromPod({ status: { phase: 'Running', containerStatuses: [{ state: { running: { startedAt: at } } }] } }, true);
  assert.deepEqual(run, { phase: 'running', startedAtMs: Date.parse(at) });
  const crash = observedFromPod({ status: { phase: 'Running', containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }] } }, true);
  assert.equal(crash.reason, 'crashed');
  const failed = observedFromPod({ status: { phase: 'Failed', containerStatuses: [{ state: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: at } } }] } } as never, true);
  assert.deepEqual([failed.phase, failed.reason], ['failed', 'crashed']);
  assert.match(failed.message!, /137.*OOMKilled/);
  assert.equal(failed.endedAtMs, Date.parse(at));
  assert.equal(observedFromPod({ status: { phase: 'Succeeded' } }, true).phase, 'stopped');
});

const health = { path: '/ping', initialDelay: 10, period: 5, timeout: 2, successThreshold: 2, failureThreshold: 3 };
const worker: WorkloadSpec = { ...spec, id: 'wk-0abc', ports: [{ port: 8000, type: 'http' }], worker: { endpointId: 'ep-0xyz', health } };

test('worker pod: named by its id, endpoint labels, readiness probe on its port, no Service', () => {
  assert.equal(objectName('wk-0abc'), 'wk-0abc');
  assert.equal(objectName('ins_01abc'), 'gi-ins-01abc', 'instance names do not change');
  const p = podManifest(worker, 'gantry');
  assert.equal(p.metadata.name, 'wk-0abc');
  assert.deepEqual(p.metadata.labels, { 'app.kubernetes.io/managed-by': 'gantry', 'gantry.dev/role': 'worker', 'gantry.dev/endpoint': 'ep-0xyz', 'gantry.dev/team': 'usr_contract' });
  assert.equal(p.spec.restartPolicy, 'Never');
  assert.deepEqual(p.spec.imagePullSecrets, [{ name: 'wk-0abc-pull' }]);
  const c = p.spec.containers[0]!;
  assert.equal(c.resources.limits['nvidia.com/gpu'], '2');
  assert.deepEqual(c.readinessProbe, {
    httpGet: { path: '/ping', port: 8000, scheme: 'HTTP' },
    initialDelaySeconds: 10, periodSeconds: 5, timeoutSeconds: 2, successThreshold: 2, failureThreshold: 3,
  });
  assert.equal(serviceManifest(worker, 'gantry'), undefined);
  assert.equal(pullSecretManifest(worker, 'gantry')!.metadata.labels['gantry.dev/endpoint'], 'ep-0xyz');
  assert.equal(markerManifest(worker, 'gantry').metadata.name, 'wk-0abc');
  assert.throws(() => podManifest({ ...worker, ports: [] }, 'gantry'), /no port/);
  // an instance has no probe and keeps its labels
  const ins = podManifest(spec, 'gantry');
  assert.equal('readinessProbe' in ins.spec.containers[0]!, false);
  assert.deepEqual(ins.metadata.labels, { 'app.kubernetes.io/managed-by': 'gantry', 'gantry.io/instance': 'gi-ins-01abc', 'gantry.dev/team': 'usr_contract' });
  // every object carries the team
  for (const o of [serviceManifest(spec, 'gantry')!, pullSecretManifest(spec, 'gantry')!, markerManifest(spec, 'gantry')]) assert.equal(o.metadata.labels['gantry.dev/team'], 'usr_contract');
});

test('readiness probe values are raised to what Kubernetes accepts', () => {
  const p = readinessProbe({ path: 'healthz', initialDelay: -3, period: 0, timeout: 0.2, successThreshold: 0, failureThreshold: Number.NaN }, 80);
  assert.deepEqual(p, {
    httpGet: { path: '/healthz', port: 80, scheme: 'HTTP' },
    initialDelaySeconds: 0, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 1,
  });
  assert.equal(readinessProbe({ ...health, path: '' }, 80).httpGet.path, '/');
  assert.equal(readinessProbe({ ...health, period: 2.5 }, 80).periodSeconds, 3);
});

test('address: pod IP and first container port while running, nothing otherwise', () => {
  const podSpec = { containers: [{ ports: [{ containerPort: 8000 }, { containerPort: 9000 }] }] };
  const running = { state: { running: { startedAt: '2026-11-15T12:00:00Z' } } };
  assert.equal(addressFromPod({ spec: podSpec, status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [running] } }), '10.0.0.5:8000');
  assert.equal(addressFromPod({ spec: podSpec, status: { phase: 'Running', podIP: 'fd00::5', containerStatuses: [running] } }), '[fd00::5]:8000');
  assert.equal(addressFromPod(undefined), undefined);
  assert.equal(addressFromPod({ spec: podSpec, status: { phase: 'Running', containerStatuses: [running] } }), undefined, 'no IP yet');
  assert.equal(addressFromPod({ spec: { containers: [{}] }, status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [running] } }), undefined, 'no port');
  assert.equal(addressFromPod({ spec: podSpec, status: { phase: 'Pending', podIP: '10.0.0.5' } }), undefined);
  assert.equal(addressFromPod({ metadata: { deletionTimestamp: '2026-11-15T12:09:00Z' }, spec: podSpec, status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [running] } }), undefined);
  assert.equal(addressFromPod({ spec: podSpec, status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [{ state: { waiting: { reason: 'CrashLoopBackOff' } } }] } }), undefined);
});

test('ports: an instance\'s through its Service, a worker\'s at the pod IP, only while running; ids read back from the objects', () => {
  const running = { spec: { containers: [{ ports: [{ containerPort: 8000 }] }] }, status: { phase: 'Running', podIP: '10.0.0.5', containerStatuses: [{ state: { running: { startedAt: '2026-11-15T12:00:00Z' } } }] } };
  assert.deepEqual(portsFromPod(running, spec, 'gantry', { spec: { clusterIP: '10.96.0.7' } }), [
    { port: 8000, type: 'http', endpoint: '10.96.0.7:8000' }, { port: 3306, type: 'tcp', endpoint: '10.96.0.7:3306' },
  ]);
  assert.deepEqual(portsFromPod(running, spec, 'gantry', { spec: { clusterIP: 'None' } }).map((p) => p.endpoint), ['gi-ins-01abc.gantry.svc:8000', 'gi-ins-01abc.gantry.svc:3306']);
  assert.deepEqual(portsFromPod(running, spec, 'gantry', undefined), [], 'no Service yet');
  assert.deepEqual(portsFromPod(running, worker, 'gantry', undefined), [{ port: 8000, type: 'http', endpoint: '10.0.0.5:8000' }]);
  assert.deepEqual(portsFromPod({ ...running, status: { phase: 'Pending', podIP: '10.0.0.5' } }, spec, 'gantry', { spec: { clusterIP: '10.96.0.7' } }), []);
  assert.deepEqual(portsFromPod(undefined, worker, 'gantry', undefined), []);
  assert.equal(workloadIdOf(podManifest(spec, 'gantry')), 'ins_01abc');
  assert.equal(workloadIdOf(podManifest(worker, 'gantry')), 'wk-0abc');
  assert.equal(workloadIdOf(markerManifest(spec, 'gantry')), 'ins_01abc');
  assert.equal(workloadIdOf({ metadata: { name: 'gi-something' } }), undefined, 'an instance object without its id is not guessed');
});

test('names from ids: valid DNS labels, the same for the same id, different for different ids, long ones hashed', () => {
  const label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/; // DNS-1035, so DNS-1123 too
  const ids = ['nst_01m8vggcapgzv1ysa2ypyh', 'nst_01m8vggcapgzv1ysa2ypyj', `nst_${'x'.repeat(80)}`, `nst_${'x'.repeat(80)}y`, 'NST_Upper', `nst_${'a'.repeat(58)}_`];
  const names = ids.map(storageClaimName);
  for (const n of names) {
    assert.match(n, label, n);
    assert.ok(n.length <= 63, n);
  }
  assert.equal(new Set(names).size, ids.length, 'one claim per storage');
  assert.deepEqual(ids.map(storageClaimName), names, 'deterministic: from the id alone');
  assert.equal(storageClaimName('nst_01m8vggcapgzv1ysa2ypyh'), 'gns-nst-01m8vggcapgzv1ysa2ypyh');
  assert.equal(objectName('ins_01m8vggcapgzv1ysa2ypyh'), 'gi-ins-01m8vggcapgzv1ysa2ypyh', 'instances keep the names they always had');
  assert.equal(objectName('wk-0123456789abcdefghjkmn'), 'wk-0123456789abcdefghjkmn');
  assert.match(objectName(`ins_${'z'.repeat(70)}`), label);
});
