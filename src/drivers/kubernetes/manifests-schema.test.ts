// Every object the kubernetes driver builds, checked against Kubernetes' own OpenAPI schemas
// (issue 31), so an API server would not refuse it for its shape. Built through manifests.ts
// (and, once, through the driver and the real client to the fake API server) from realistic
// specs and from generated ones; planted violations show the check can fail.
//
// The schemas: `kubernetes-models` 5.1.0 (a devDependency), generated from the OpenAPI document
// of Kubernetes v1.36.0: the release @kubernetes/client-node 2.0.1, the driver's client, is
// generated from (its models say "OpenAPI spec version: release-1.36"). Its `_schemas/*` are ajv
// validators compiled from that document: types, required fields, enums (restartPolicy,
// protocol, scheme, Service type…), int32/int64 ranges, resource quantities (`124Gi`), base64
// of a Secret's `data`. `kubernetes-types` is types only, nothing to validate with at run time.
//
// Those validators do not refuse unknown fields (the document has no `additionalProperties:
// false`), while an API server drops them (with a warning) or refuses them under
// `fieldValidation=Strict`, kubectl's default. Worse, the client serializes a body through its
// model classes, which send only the fields they know: a misspelt field would vanish before the
// request, and with it what it meant. So `unknownFields` walks each manifest along the client's
// own models (their `attributeTypeMap`, generated from the same v1.36 document; the field sets
// of PodSpec, Container, ServiceSpec and Probe are identical in both packages) and reports every
// key the schema does not have. Not checked here: the API server's rules beyond the schema
// (DNS names, label syntax, port-name format, limits ≥ requests), which the builders keep by
// construction and manifests.test.ts asserts value by value.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { validate as configMapSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap';
import { validate as podSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Pod';
import { validate as claimSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1PersistentVolumeClaim';
import { validate as probeSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Probe';
import { validate as secretSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret';
import { validate as serviceSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Service';
import { baseSpec } from '../contract.ts';
import type { WorkloadSpec } from '../types.ts';
import { KubernetesDriver } from './driver.ts';
import { FakeApiServer } from './fake-apiserver.ts';
import { isObject, unknownFields, type Validator } from '../../../test/helpers/kube-schemas.ts';
import { markerManifest, podManifest, pullSecretManifest, readinessProbe, serviceManifest } from './manifests.ts';


/** Each object the driver sends, by kind: its compiled schema and the client's model of it. */
const SCHEMAS: Record<string, { validate: Validator; model: string }> = {
  Pod: { validate: podSchema, model: 'V1Pod' },
  Service: { validate: serviceSchema, model: 'V1Service' },
  Secret: { validate: secretSchema, model: 'V1Secret' },
  ConfigMap: { validate: configMapSchema, model: 'V1ConfigMap' },
  PersistentVolumeClaim: { validate: claimSchema, model: 'V1PersistentVolumeClaim' },
  Probe: { validate: probeSchema, model: 'V1Probe' },
};

/** What the schema (and the strict field check) finds wrong in a manifest as sent: [] when nothing. */
function schemaProblems(manifest: unknown, as?: string): string[] {
  if (manifest === undefined) return ['no manifest'];
  const wire: unknown = JSON.parse(JSON.stringify(manifest)); // the body as sent: undefined fields gone
  const kind = as ?? (isObject(wire) ? String(wire.kind) : '');
  const s = SCHEMAS[kind];
  if (!s) return [`no schema for kind ${kind}`];
  const out: string[] = [];
  if (!s.validate(wire)) {
    for (const e of s.validate.errors ?? []) out.push(`${e.instancePath || '/'}: ${e.keyword} ${JSON.stringify(e.params)}`);
  }
  unknownFields(wire, s.model, '', out);
  return out;
}

function assertValid(manifest: unknown, what: string, as?: string): void {
  assert.deepEqual(schemaProblems(manifest, as), [], `${what} does not match Kubernetes' schema`);
}

/** Every object the driver makes for a spec, as manifests.ts builds them (undefined: not made). */
function built(spec: WorkloadSpec, ns = 'gantry') {
  return { pod: podManifest(spec, ns), service: serviceManifest(spec, ns), secret: pullSecretManifest(spec, ns), marker: markerManifest(spec, ns) };
}

// the stand-in API server (fake-apiserver.ts) the driver's requests go to, through the real client
const api = new FakeApiServer();
before(() => api.start());
after(() => api.close());

const gpuInstance: WorkloadSpec = {
  ...baseSpec('ins_01j9z3k4m5n6p7q8r9s0t1v2w3', 'ghcr.io/acme/train:2'),
  gpuNum: 8, cpuNum: 96, memoryGb: 1024, rootfsGb: 500,
  entrypoint: 'python -m server', command: '--port 8000 --model /models/llama', envs: [{ key: 'MODEL', value: 'llama-3-70b' }, { key: 'HF_HOME', value: '/data/hf' }, { key: 'EMPTY', value: '' }],
  ports: [{ port: 8000, type: 'http' }, { port: 22, type: 'tcp' }, { port: 65535, type: 'tcp' }],
  nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-H200', 'topology.kubernetes.io/zone': 'eu-west-1a' },
  imagePullAuth: { server: 'ghcr.io', username: 'bob', password: 's3cret:with/odd chars=' },
  volumes: [{ type: 'network', size: '500', id: 'nst_01data0000000000000000', mountPath: '/data' }, { type: 'local', size: '', id: '', mountPath: '/scratch' }, { type: 'local', size: '200', id: '', mountPath: '/cache' }],
};

const health = { path: '/health', initialDelay: 5, period: 10, timeout: 2, successThreshold: 1, failureThreshold: 3 };
const worker: WorkloadSpec = {
  ...baseSpec('wk-0123456789abcdefghjkmn', 'nvcr.io/acme/infer:3'),
  gpuNum: 1, cpuNum: 8, memoryGb: 30, rootfsGb: 50, command: 'python serve.py', envs: [{ key: 'MODEL', value: 'llama' }],
  ports: [{ port: 8000, type: 'http' }], nodeSelector: { 'nvidia.com/gpu.product': 'NVIDIA-GeForce-RTX-4090' },
  imagePullAuth: { server: 'nvcr.io', username: '$oauthtoken', password: 'nvapi-xyz' },
  volumes: [{ type: 'network', size: '100', id: 'nst_01models00000000000000', mountPath: '/models' }, { type: 'local', size: '30', id: '', mountPath: '/tmp/work' }],
  worker: { endpointId: 'ep-0123456789abcdefghjkmn', health },
};

test('a GPU instance: its pod (GPUs, node selector, envs, entrypoint and command, volumes, pull secret), Service, pull Secret and marker ConfigMap', () => {
  const o = built(gpuInstance);
  assert.equal(o.pod.spec.containers[0]!.resources.limits['nvidia.com/gpu'], '8', 'the GPU case is the one checked');
  assertValid(o.pod, 'the pod');
  assertValid(o.service, 'the Service');
  assertValid(o.secret, 'the pull Secret');
  assertValid(o.marker, 'the marker ConfigMap');
  // a namespace of its own changes nothing of the shape
  for (const m of Object.values(built(gpuInstance, 'team-a-gpu'))) assertValid(m, `${m?.kind} in another namespace`);
});

test('a CPU instance with the image\'s own command and nothing optional: a pod and its marker, no Service, no Secret', () => {
  const cpu: WorkloadSpec = { ...baseSpec('ins_01cpu'), command: '', entrypoint: '', envs: [], ports: [], gpuNum: 0, nodeSelector: {}, volumes: [] };
  const o = built(cpu);
  assert.equal(o.pod.spec.containers[0]!.command, undefined);
  assert.equal(o.service, undefined);
  assert.equal(o.secret, undefined);
  assertValid(o.pod, 'the pod');
  assertValid(o.marker, 'the marker ConfigMap');
  // the contract's own spec (one port, one env, a command): its Service too
  for (const m of Object.values(built(baseSpec('ins_contract1')))) if (m) assertValid(m, `the contract spec's ${m.kind}`);
});

test('a serverless worker: its pod with the readiness probe, its pull Secret and marker; the probe alone, whatever healthy says', () => {
  const o = built(worker);
  assert.equal(o.service, undefined);
  assert.ok(o.pod.spec.containers[0]!.readinessProbe, 'the probe is part of what is checked');
  assertValid(o.pod, 'the worker pod');
  assertValid(o.secret, 'the worker pull Secret');
  assertValid(o.marker, 'the worker marker');
  // values below Kubernetes' minimums, fractions, NaN, an empty or relative path: raised to a probe it accepts
  const odd = { path: 'healthz', initialDelay: -3, period: 0, timeout: 0.2, successThreshold: 0, failureThreshold: Number.NaN };
  assertValid(readinessProbe(odd, 8000), 'the probe from out-of-range values', 'Probe');
  assertValid(readinessProbe({ ...health, path: '', period: 2.5, timeout: Number.POSITIVE_INFINITY }, 1), 'the probe from fractions', 'Probe');
  assertValid(podManifest({ ...worker, worker: { endpointId: 'ep-1', health: odd } }, 'gantry'), 'the worker pod with that probe');
});

// The interface's ranges (http/routes/compute and serverless schemas, domain/serverless): within
// them, every spec builds objects an API server takes.
const port = fc.integer({ min: 1, max: 65535 });
const seconds = fc.oneof(fc.integer({ min: 0, max: 3600 }), fc.double({ min: -3600, max: 3600 })); // doubles: NaN, -0, fractions too
const specs: fc.Arbitrary<WorkloadSpec> = fc.record({
  n: fc.stringMatching(/^[0-9a-z]{1,26}$/),
  image: fc.constantFrom('busybox:1.36', 'ghcr.io/acme/train:2', 'registry.example.com:5000/team/img@sha256:' + 'a'.repeat(64)),
  command: fc.string({ maxLength: 80 }),
  entrypoint: fc.string({ maxLength: 80 }),
  envs: fc.array(fc.record({ key: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,30}$/), value: fc.string({ maxLength: 100 }) }), { maxLength: 6 }),
  ports: fc.uniqueArray(fc.record({ port, type: fc.constantFrom('http', 'tcp') }), { selector: (p) => p.port, maxLength: 6 }),
  gpuNum: fc.integer({ min: 0, max: 8 }),
  cpuNum: fc.integer({ min: 1, max: 256 }),
  memoryGb: fc.integer({ min: 1, max: 4096 }),
  rootfsGb: fc.integer({ min: 1, max: 10_000 }),
  nodeSelector: fc.dictionary(fc.constantFrom('nvidia.com/gpu.product', 'topology.kubernetes.io/zone', 'gantry.dev/pool'), fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,40}[A-Za-z0-9])?$/)),
  volumes: fc.array(fc.oneof(
    fc.record({ type: fc.constant('network'), size: fc.integer({ min: 1, max: 100_000 }).map(String), id: fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$/) }),
    fc.record({ type: fc.constant('local'), size: fc.oneof(fc.constant(''), fc.integer({ min: 1, max: 10_000 }).map(String)), id: fc.constant('') }),
  ), { maxLength: 4 }),
  imagePullAuth: fc.option(fc.record({ server: fc.constantFrom('ghcr.io', 'nvcr.io', 'registry.example.com:5000'), username: fc.string({ minLength: 1, maxLength: 40 }), password: fc.string({ minLength: 1, maxLength: 80 }) }), { nil: undefined }),
  worker: fc.option(fc.record({
    port,
    health: fc.record({ path: fc.string({ maxLength: 40 }), initialDelay: seconds, period: seconds, timeout: seconds, successThreshold: fc.integer({ min: 0, max: 100 }), failureThreshold: fc.integer({ min: 0, max: 100 }) }),
  }), { nil: undefined }),
}).map(({ n, worker: w, volumes, ...rest }) => ({
  ...rest,
  id: w ? `wk-${n}` : `ins_${n}`, teamId: 'usr_01team', clusterId: 'cls_local',
  volumes: volumes.map((v, i) => ({ ...v, mountPath: `/mnt/v${i}` })),
  ...(w ? { ports: [{ port: w.port, type: 'http' }], worker: { endpointId: `ep-${n}`, health: w.health } } : {}),
}));

test('every spec within the interface\'s ranges builds objects that match the schema', () => {
  fc.assert(fc.property(specs, (spec) => {
    const o = built(spec);
    for (const m of [o.pod, o.marker, ...(o.service ? [o.service] : []), ...(o.secret ? [o.secret] : [])]) {
      const problems = schemaProblems(m);
      if (problems.length) throw new Error(`${m.kind}: ${problems.join('; ')}`);
    }
    if (spec.worker) assert.equal(o.service, undefined);
    if (spec.imagePullAuth) assert.ok(o.secret);
  }), { numRuns: 300 });
});

test('what the driver sends through the real client, every body of every call, matches the schema', async () => {
  const driver = new KubernetesDriver(api.coreApi(), 'gantry');
  await driver.create(gpuInstance);
  await driver.create(worker);
  await driver.stop(gpuInstance.id);
  await driver.start(gpuInstance);
  await driver.delete(worker.id);
  const bodies = api.requests.filter((r) => r.body !== undefined).map((r) => ({ call: `${r.method} ${r.url}`, body: r.body as { kind?: string } }));
  assert.deepEqual([...new Set(bodies.map((b) => b.body.kind))].sort(), ['ConfigMap', 'PersistentVolumeClaim', 'Pod', 'Secret', 'Service'], 'every kind the driver makes was sent');
  for (const b of bodies) assertValid(b.body, b.call);
});

test('the check fails on a planted violation: an unknown field, a wrong type, a bad enum, quantity or base64, a missing field', () => {
  const plant = (mutate: (m: Record<string, any>) => void, m: unknown = podManifest(gpuInstance, 'gantry')) => {
    const copy = JSON.parse(JSON.stringify(m)) as Record<string, any>;
    mutate(copy);
    return schemaProblems(copy);
  };
  const reports = (problems: string[], at: string, what: RegExp) => {
    assert.ok(problems.some((p) => p.startsWith(at) && what.test(p)), `expected ${what} at ${at}, got ${JSON.stringify(problems)}`);
  };
  // unknown fields, which kubernetes-models alone lets through
  const unknown = JSON.parse(JSON.stringify(podManifest(gpuInstance, 'gantry')));
  unknown.spec.containers[0].gpus = 8;
  assert.equal(podSchema(unknown), true, 'the compiled schema alone does not refuse unknown fields: hence unknownFields');
  reports(schemaProblems(unknown), 'spec.containers[0].gpus', /unknown field/);
  reports(plant((m) => { m.metadata.label = m.metadata.labels; }), 'metadata.label', /unknown field/);
  reports(plant((m) => { m.spec.volumes[0].persistentVolumeClaim.claim = 'x'; }), 'spec.volumes[0].persistentVolumeClaim.claim', /unknown field/);
  reports(plant((m) => { m.spec.containers[0].readinessProbe = { httpGet: { path: '/', port: 80, host_: 'x' } }; }), 'spec.containers[0].readinessProbe.httpGet.host_', /unknown field/);
  reports(plant((m) => { m.spec.ports[0].target = 8000; }, serviceManifest(gpuInstance, 'gantry')), 'spec.ports[0].target', /unknown field/);
  // wrong types, enums, formats, required fields
  reports(plant((m) => { m.spec.containers[0].ports[0].containerPort = '8000'; }), '/spec/containers/0/ports/0/containerPort', /type.*integer/);
  reports(plant((m) => { m.spec.ports[0].port = '8000'; }, serviceManifest(gpuInstance, 'gantry')), '/spec/ports/0/port', /type.*integer/);
  reports(plant((m) => { m.spec.restartPolicy = 'Sometimes'; }), '/spec/restartPolicy', /enum/);
  reports(plant((m) => { m.spec.containers[0].ports[0].protocol = 'tcp'; }), '/spec/containers/0/ports/0/protocol', /enum/);
  reports(plant((m) => { m.spec.containers[0].resources.limits.memory = '124GB'; }), '/spec/containers/0/resources/limits/memory', /format.*quantity/);
  reports(plant((m) => { delete m.spec.containers[0].name; }), '/spec/containers/0', /required.*name/);
  reports(plant((m) => { m.apiVersion = 'v2'; }), '/apiVersion', /enum/);
  reports(plant((m) => { m.data['.dockerconfigjson'] = 'not base64!'; }, pullSecretManifest(gpuInstance, 'gantry')), '/data/.dockerconfigjson', /format.*byte/);
  reports(plant((m) => { m.data.spec = { id: 'x' }; }, markerManifest(gpuInstance, 'gantry')), '/data/spec', /type.*string/);
  reports(schemaProblems({ ...readinessProbe(health, 80), periodSeconds: 2 ** 31 }, 'Probe'), '/periodSeconds', /format.*int32/);
});

test('why unknown fields must be caught before sending: the client drops them silently', async () => {
  const pod = JSON.parse(JSON.stringify(podManifest({ ...baseSpec('ins_01drop'), gpuNum: 1 }, 'gantry')));
  pod.spec.containers[0].gpus = 1; // meant as a GPU request, in the wrong place
  api.requests.splice(0);
  await api.coreApi().createNamespacedPod({ namespace: 'gantry', body: pod });
  const sent = api.requests.at(-1)!.body as { spec: { containers: Record<string, unknown>[] } };
  assert.equal('gpus' in sent.spec.containers[0]!, false, 'the client sent the pod without it, and no error said so');
  assert.equal(sent.spec.containers[0]!.image, 'busybox:1.36');
});
