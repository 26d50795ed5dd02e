// The kubernetes driver for serverless workers, through the real @kubernetes/client-node
// against a fake API server on 127.0.0.1 (fake-apiserver.ts): the exact objects and calls the
// driver sends, and what describe()/address() make of pod statuses in the shape a cluster
// reports them (fixtures/worker-pod-statuses.json, hand-written, not captured from a cluster).
// No live cluster is involved: driver.test.ts runs the shared contract against one.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { baseSpec } from '../contract.ts';
import type { WorkloadSpec } from '../types.ts';
import { KubernetesDriver } from './driver.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import statuses from './fixtures/worker-pod-statuses.json' with { type: 'json' };

const NS = 'gantry';
const ID = 'wk-0123456789abcdefghjkmn';
const worker: WorkloadSpec = {
  ...baseSpec(ID, 'ghcr.io/acme/infer:3'),
  gpuNum: 1, cpuNum: 8, memoryGb: 30, rootfsGb: 50, entrypoint: '', command: 'python serve.py',
  envs: [{ key: 'MODEL', value: 'llama' }], ports: [{ port: 8000, type: 'http' }],
  nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-GeForce-RTX-4090' },
  imagePullAuth: { server: 'ghcr.io', username: 'bob', password: 's3cret' },
  // a network storage's id as Gantry makes them (nst_…): no object can be named by it as it is
  volumes: [{ type: 'network', size: '100', id: 'nst_01m8vggcapgzv1ysa2ypyh', mountPath: '/models' }],
  // timeout 0 and successThreshold 0 are below what Kubernetes accepts: sent as 1
  worker: { endpointId: 'ep-0123456789abcdefghjkmn', health: { path: '/health', initialDelay: 5, period: 3, timeout: 0, successThreshold: 0, failureThreshold: 5 } },
};

const api = new FakeApiServer();
let driver: KubernetesDriver;
before(async () => {
  await api.start();
  driver = new KubernetesDriver(api.coreApi(), NS);
});
after(() => api.close());
beforeEach(() => {
  api.objects.clear();
  api.takeCalls();
});

const base = `/api/v1/namespaces/${NS}`;

test('create sends the marker, the pull secret, the storage\'s claim and the worker pod (no Service), exactly', async () => {
  await driver.create(worker);
  assert.deepEqual(api.requests.map((r) => `${r.method} ${r.url}`), [
    `POST ${base}/configmaps`,
    `DELETE ${base}/secrets/${ID}-pull`,
    `POST ${base}/secrets`,
    `POST ${base}/persistentvolumeclaims`,
    `POST ${base}/pods`,
  ]);
  // every create was accepted: the fake API server refuses what a real one refuses of names
  assert.deepEqual([...api.objects.keys()].sort(), [`configmaps/${ID}`, 'persistentvolumeclaims/gns-nst-01m8vggcapgzv1ysa2ypyh', `pods/${ID}`, `secrets/${ID}-pull`]);
  assert.deepEqual(api.requests[3]!.body, {
    apiVersion: 'v1', kind: 'PersistentVolumeClaim',
    metadata: {
      name: 'gns-nst-01m8vggcapgzv1ysa2ypyh', namespace: NS,
      labels: { 'app.kubernetes.io/managed-by': 'gantry', 'gantry.dev/storage': 'gns-nst-01m8vggcapgzv1ysa2ypyh', 'gantry.dev/team': 'usr_contract' },
      annotations: { 'gantry.io/storage-id': 'nst_01m8vggcapgzv1ysa2ypyh' },
    },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '100Gi' } } },
  });
  const pod = api.requests.at(-1)!.body;
  assert.deepEqual(pod, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: ID,
      namespace: NS,
      labels: { 'app.kubernetes.io/managed-by': 'gantry', 'gantry.dev/role': 'worker', 'gantry.dev/endpoint': 'ep-0123456789abcdefghjkmn', 'gantry.dev/team': 'usr_contract' },
      annotations: { 'gantry.io/cluster': 'cls_local' },
    },
    spec: {
      restartPolicy: 'Never',
      nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-GeForce-RTX-4090' },
      imagePullSecrets: [{ name: `${ID}-pull` }],
      containers: [{
        name: 'main',
        image: 'ghcr.io/acme/infer:3',
        imagePullPolicy: 'Always',
        command: ['/bin/sh', '-c', 'python serve.py'],
        env: [{ name: 'MODEL', value: 'llama' }],
        ports: [{ containerPort: 8000, protocol: 'TCP', name: 'http-8000' }],
        resources: {
          limits: { cpu: '8', memory: '30Gi', 'ephemeral-storage': '50Gi', 'nvidia.com/gpu': '1' },
          requests: { cpu: '8', memory: '30Gi' },
        },
        volumeMounts: [{ name: 'vol-0', mountPath: '/models' }],
        readinessProbe: {
          httpGet: { path: '/health', port: 8000, scheme: 'HTTP' },
          initialDelaySeconds: 5, periodSeconds: 3, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 5,
        },
      }],
      volumes: [{ name: 'vol-0', persistentVolumeClaim: { claimName: 'gns-nst-01m8vggcapgzv1ysa2ypyh' } }],
    },
  });
  const secret = api.requests[2]!.body as { type: string; metadata: { name: string; labels: Record<string, string> }; data: Record<string, string> };
  assert.equal(secret.type, 'kubernetes.io/dockerconfigjson');
  assert.equal(secret.metadata.name, `${ID}-pull`);
  assert.equal(secret.metadata.labels['gantry.dev/endpoint'], 'ep-0123456789abcdefghjkmn');
  const cfg = JSON.parse(Buffer.from(secret.data['.dockerconfigjson']!, 'base64').toString());
  assert.equal(Buffer.from(cfg.auths['ghcr.io'].auth, 'base64').toString(), 'bob:s3cret');
  const marker = api.requests[0]!.body as { metadata: { name: string; labels: Record<string, string> }; data: { spec: string } };
  assert.equal(marker.metadata.name, ID);
  assert.equal(marker.metadata.labels['gantry.dev/role'], 'worker');
  assert.ok(!marker.data.spec.includes('s3cret'), 'the marker never holds the password');

  // create again: the 409s are answers, not errors, and nothing is duplicated
  api.takeCalls();
  await driver.create(worker);
  assert.deepEqual([...api.objects.keys()].sort(), ['configmaps/' + ID, 'persistentvolumeclaims/gns-nst-01m8vggcapgzv1ysa2ypyh', `pods/${ID}`, `secrets/${ID}-pull`]);
});

test('describe and address follow the pod: pending, running (ready or not), terminating', async () => {
  await driver.create(worker);
  // just created, not scheduled yet
  assert.deepEqual(await driver.describe(ID), { phase: 'creating' });
  assert.equal(await driver.address(ID), undefined);

  api.setPodStatus(ID, statuses.pendingContainerCreating);
  assert.deepEqual(await driver.describe(ID), { phase: 'pulling' });
  assert.equal(await driver.address(ID), undefined);

  // the container runs, the readiness probe has not passed: the driver says running and
  // gives the address; the serverless reconciler's own probe decides when traffic goes there
  api.setPodStatus(ID, statuses.runningNotReady);
  assert.deepEqual(await driver.describe(ID), { phase: 'running', startedAtMs: Date.parse('2026-11-15T12:00:40Z') });
  assert.equal(await driver.address(ID), '10.244.1.17:8000');

  api.setPodStatus(ID, statuses.runningReady);
  assert.deepEqual(await driver.describe(ID), { phase: 'running', startedAtMs: Date.parse('2026-11-15T12:00:40Z') });
  assert.equal(await driver.address(ID), '10.244.1.17:8000');

  // an IPv6 pod IP is bracketed
  api.setPodStatus(ID, { ...statuses.runningReady, podIP: 'fd00:10:244::11', podIPs: [{ ip: 'fd00:10:244::11' }] });
  assert.equal(await driver.address(ID), '[fd00:10:244::11]:8000');

  // being deleted (grace period running): no longer an address to send requests to
  api.setPodStatus(ID, statuses.runningReady, '2026-11-15T12:09:00Z');
  assert.deepEqual(await driver.describe(ID), { phase: 'stopping' });
  assert.equal(await driver.address(ID), undefined);
});

test('stop removes the pod (stopped), delete removes everything (absent); both idempotent', async () => {
  await driver.create(worker);
  api.setPodStatus(ID, statuses.runningReady);
  api.takeCalls();
  await driver.stop(ID);
  await driver.stop(ID);
  assert.deepEqual(api.takeCalls(), [`DELETE ${base}/pods/${ID}`, `DELETE ${base}/pods/${ID}`]);
  assert.deepEqual(await driver.describe(ID), { phase: 'stopped' });
  assert.equal(await driver.address(ID), undefined);

  api.takeCalls();
  await driver.delete(ID);
  assert.deepEqual(api.takeCalls(), [
    `DELETE ${base}/configmaps/${ID}`,
    `DELETE ${base}/pods/${ID}`,
    `DELETE ${base}/services/${ID}`,
    `DELETE ${base}/secrets/${ID}-pull`,
  ]);
  // the storage's claim stays: the storage outlives its workloads
  assert.deepEqual([...api.objects.keys()], ['persistentvolumeclaims/gns-nst-01m8vggcapgzv1ysa2ypyh']);
  await driver.delete(ID);
  assert.deepEqual(await driver.describe(ID), { phase: 'absent' });
  assert.equal(await driver.address(ID), undefined);
});

test('a pull back-off, a crash and a clean exit are reported; start replaces a finished pod', async () => {
  await driver.create(worker);
  api.setPodStatus(ID, statuses.imagePullBackOff);
  assert.deepEqual(await driver.describe(ID), { phase: 'failed', reason: 'image_pull_failed', message: 'the pull of ghcr.io/acme/infer:3 failed (what the registry answered is not shown)' });
  assert.equal(await driver.address(ID), undefined, 'a pod IP without a running container is no address');

  api.setPodStatus(ID, statuses.failedExit1);
  assert.deepEqual(await driver.describe(ID), {
    phase: 'failed', reason: 'crashed', message: 'exited with code 1 (Error)', endedAtMs: Date.parse('2026-11-15T12:05:09Z'),
  });
  assert.equal(await driver.address(ID), undefined);

  api.setPodStatus(ID, statuses.succeededCompleted);
  assert.deepEqual(await driver.describe(ID), { phase: 'stopped' });
  assert.equal(await driver.address(ID), undefined);

  // start after a finished run deletes the old pod at once and creates a fresh one
  api.takeCalls();
  await driver.start(worker);
  const calls = api.takeCalls();
  assert.deepEqual(calls.slice(0, 3), [`GET ${base}/pods/${ID}`, `GET ${base}/configmaps/${ID}`, `DELETE ${base}/pods/${ID}?gracePeriodSeconds=0`]);
  assert.equal(calls.at(-1), `POST ${base}/pods`);
  assert.deepEqual(await driver.describe(ID), { phase: 'creating' });
});

test('instances through the same API: a Service, no probe, the same address rule', async () => {
  const ins: WorkloadSpec = { ...baseSpec('ins_01abc'), ports: [{ port: 8888, type: 'http' }] };
  await driver.create(ins);
  assert.deepEqual(api.takeCalls(), [`POST ${base}/configmaps`, `POST ${base}/services`, `POST ${base}/pods`]);
  const pod = api.pod('gi-ins-01abc')!;
  assert.deepEqual(pod.metadata.labels, { 'app.kubernetes.io/managed-by': 'gantry', 'gantry.io/instance': 'gi-ins-01abc', 'gantry.dev/team': 'usr_contract' });
  assert.equal(JSON.stringify(pod).includes('readinessProbe'), false);
  api.setPodStatus('gi-ins-01abc', statuses.runningReady);
  assert.equal(await driver.address('ins_01abc'), '10.244.1.17:8888');
  // ports: the Service's address (the fake gives no cluster IP: its DNS name), the worker's pod IP
  assert.deepEqual(await driver.ports('ins_01abc'), [{ port: 8888, type: 'http', endpoint: 'gi-ins-01abc.gantry.svc:8888' }]);
  (api.objects.get('services/gi-ins-01abc')!.spec as { clusterIP?: string }).clusterIP = '10.96.0.7';
  assert.deepEqual(await driver.ports('ins_01abc'), [{ port: 8888, type: 'http', endpoint: '10.96.0.7:8888' }]);
  await driver.create(worker);
  assert.deepEqual(await driver.ports(ID), [], 'not running yet');
  api.setPodStatus(ID, statuses.runningReady);
  assert.deepEqual(await driver.ports(ID), [{ port: 8000, type: 'http', endpoint: `${statuses.runningReady.podIP}:8000` }]);
});

test('list: every workload with a pod or a marker labelled as Gantry\'s, by label selector; a stopped instance too', async () => {
  const ins: WorkloadSpec = { ...baseSpec('ins_01abc'), ports: [{ port: 8888, type: 'http' }] };
  await driver.create(ins);
  await driver.create(worker);
  api.objects.set('pods/not-ours', { metadata: { name: 'not-ours', labels: { app: 'other' } } });
  api.takeCalls();
  assert.deepEqual((await driver.list()).sort(), ['ins_01abc', ID].sort());
  assert.deepEqual(api.takeCalls().sort(), [
    `GET ${base}/configmaps?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dgantry`, `GET ${base}/pods?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dgantry`,
  ]);
  await driver.stop('ins_01abc');
  assert.deepEqual((await driver.list()).sort(), ['ins_01abc', ID].sort(), 'a stopped instance keeps its marker');
  await driver.delete('ins_01abc');
  await driver.delete(ID);
  assert.deepEqual(await driver.list(), []);
});

test('an API error other than 404/409 reaches the caller', async () => {
  api.failNext = { method: 'GET', pathIncludes: `/pods/${ID}`, code: 500 };
  await assert.rejects(driver.address(ID), (err: { code?: number }) => err.code === 500);
  api.failNext = { method: 'POST', pathIncludes: '/pods', code: 403 };
  await assert.rejects(driver.create(worker), (err: { code?: number }) => err.code === 403);
});
