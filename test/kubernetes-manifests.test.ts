// deploy/kubernetes: every object the kustomization applies (and the example Secret) checked
// against Kubernetes' own schemas (kubernetes-models, v1.36, as the driver's manifests are in
// src/drivers/kubernetes/manifests-schema.test.ts: the ajv validators, plus a walk along the
// client's models for fields the schema does not know), and the deployment's rules: probes on
// /readyz and /healthz, `gantry migrate` before the server in every pod, RBAC granting exactly
// what the kubernetes compute driver calls in its namespace, background jobs where they are
// safe, secrets only from the Secret, a PodDisruptionBudget that lets a drain proceed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { validate as deploymentSchema } from 'kubernetes-models/_schemas/IoK8sApiAppsV1Deployment';
import { validate as configMapSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap';
import { validate as namespaceSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Namespace';
import { validate as secretSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Secret';
import { validate as serviceSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1Service';
import { validate as serviceAccountSchema } from 'kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount';
import { validate as pdbSchema } from 'kubernetes-models/_schemas/IoK8sApiPolicyV1PodDisruptionBudget';
import { validate as roleSchema } from 'kubernetes-models/_schemas/IoK8sApiRbacV1Role';
import { validate as roleBindingSchema } from 'kubernetes-models/_schemas/IoK8sApiRbacV1RoleBinding';

import { unknownFields, type Validator } from './helpers/kube-schemas.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIR = join(ROOT, 'deploy/kubernetes');

const SCHEMAS: Record<string, { validate: Validator; model: string }> = {
  Deployment: { validate: deploymentSchema, model: 'V1Deployment' },
  ConfigMap: { validate: configMapSchema, model: 'V1ConfigMap' },
  Namespace: { validate: namespaceSchema, model: 'V1Namespace' },
  Secret: { validate: secretSchema, model: 'V1Secret' },
  Service: { validate: serviceSchema, model: 'V1Service' },
  ServiceAccount: { validate: serviceAccountSchema, model: 'V1ServiceAccount' },
  PodDisruptionBudget: { validate: pdbSchema, model: 'V1PodDisruptionBudget' },
  Role: { validate: roleSchema, model: 'V1Role' },
  RoleBinding: { validate: roleBindingSchema, model: 'V1RoleBinding' },
};

function schemaProblems(manifest: Record<string, unknown>): string[] {
  const s = SCHEMAS[String(manifest.kind)];
  if (!s) return [`no schema for kind ${String(manifest.kind)}`];
  const out: string[] = [];
  if (!s.validate(manifest)) for (const e of s.validate.errors ?? []) out.push(`${e.instancePath || '/'}: ${e.keyword} ${JSON.stringify(e.params)}`);
  unknownFields(manifest, s.model, '', out);
  return out;
}

interface Kustomization { resources: string[]; namespace?: string; images?: { name: string }[] }
const kustomization = k8s.loadYaml<Kustomization>(readFileSync(join(DIR, 'kustomization.yaml'), 'utf8'));
type Obj = Record<string, any> & { kind: string; metadata: { name: string; namespace?: string } };
const load = (file: string): Obj[] => k8s.loadAllYaml(readFileSync(join(DIR, file), 'utf8')).filter(Boolean) as Obj[];
const applied: Obj[] = kustomization.resources.flatMap(load);
const one = (kind: string, name?: string) => {
  const found = applied.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  assert.equal(found.length, 1, `expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}`);
  return found[0]!;
};

test('every YAML file of deploy/kubernetes is applied by the kustomization or is the example Secret', () => {
  const files = readdirSync(DIR).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml').sort();
  assert.deepEqual(files, [...kustomization.resources, 'secret.example.yaml'].sort());
});

test('every object matches Kubernetes\' schema, and says its namespace', () => {
  for (const o of [...applied, ...load('secret.example.yaml')]) {
    assert.deepEqual(schemaProblems(o), [], `${o.kind} ${o.metadata?.name} does not match Kubernetes' schema`);
    if (o.kind !== 'Namespace') assert.ok(o.metadata.namespace, `${o.kind} ${o.metadata.name} has no namespace (the kustomization sets none)`);
  }
  assert.equal(kustomization.namespace, undefined, 'a kustomization namespace would move the driver\'s Role into Gantry\'s namespace');
  for (const ns of new Set(applied.map((o) => o.metadata.namespace).filter(Boolean))) one('Namespace', ns);
});

const deployment = one('Deployment', 'gantry');
const pod = deployment.spec.template.spec;
const server = pod.containers.find((c: Obj) => c.name === 'gantry');
const configMap = one('ConfigMap', 'gantry');

test('the Deployment: replicas, probes, migrations before the server, the image the kustomization names', () => {
  assert.ok(deployment.spec.replicas >= 2, 'one replica is no high availability');
  assert.ok(server, 'no container named gantry');
  assert.deepEqual(server.args, ['serve']);
  const port = server.ports.find((p: { containerPort: number }) => p.containerPort === 8080);
  assert.ok(port, 'the server container does not expose 8080 (PORT, the image\'s default)');
  for (const [probe, path] of [['readinessProbe', '/readyz'], ['livenessProbe', '/healthz']] as const) {
    assert.equal(server[probe]?.httpGet?.path, path, `${probe} is not on ${path}`);
    assert.ok([port.name, 8080].includes(server[probe].httpGet.port), `${probe} probes another port`);
  }
  // migrations: an init container of the same image, settings and data dir, running `gantry migrate`
  const migrate = pod.initContainers?.find((c: Obj) => c.args?.[0] === 'migrate');
  assert.ok(migrate, 'no init container runs gantry migrate');
  assert.deepEqual(migrate.args, ['migrate']);
  assert.equal(migrate.image, server.image);
  assert.deepEqual(migrate.envFrom, server.envFrom);
  assert.deepEqual(migrate.env, server.env);
  assert.deepEqual(migrate.volumeMounts, server.volumeMounts);
  assert.equal(deployment.spec.strategy.rollingUpdate.maxUnavailable, 0, 'a rollout must not drop a ready pod before its successor is ready');
  assert.ok(server.volumeMounts.some((m: { mountPath: string }) => m.mountPath === '/var/lib/gantry'), 'no data dir volume (GANTRY_DATA_DIR)');
  assert.ok(kustomization.images?.some((i) => i.name === server.image), `the kustomization does not set the image ${server.image}`);
  assert.ok(pod.terminationGracePeriodSeconds > 30, 'Gantry needs 30 s to let requests in flight finish');
  for (const c of [...pod.initContainers, ...pod.containers]) {
    assert.equal(c.securityContext?.allowPrivilegeEscalation, false, `${c.name} may escalate`);
  }
  assert.equal(pod.securityContext.runAsNonRoot, true);
  assert.equal(pod.securityContext.runAsUser, 10001, 'the image\'s user is 10001');
});

/** The verbs and resources the kubernetes driver calls, read from its source (`this.core.<verb>Namespaced<Kind>(`). */
function driverCalls(): Set<string> {
  const source = readFileSync(join(ROOT, 'src/drivers/kubernetes/driver.ts'), 'utf8');
  const clients = [...source.matchAll(/makeApiClient\(k8s\.(\w+)\)/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(clients)], ['CoreV1Api'], 'the driver uses another API group than core: extend this test');
  const verbs: Record<string, string> = { create: 'create', read: 'get', list: 'list', delete: 'delete', patch: 'patch', replace: 'update', deleteCollection: 'deletecollection' };
  const calls = new Set<string>();
  for (const m of source.matchAll(/\.core\.(create|read|list|deleteCollection|delete|patch|replace)Namespaced(\w+?)(Log|Status)?\(/g)) {
    const resource = `${m[2]!.toLowerCase()}s${m[3] ? `/${m[3].toLowerCase()}` : ''}`;
    calls.add(`${resource} ${verbs[m[1]!]}`);
  }
  assert.ok(calls.size >= 5, `found only ${[...calls].join(', ')} in the driver: has its client changed?`);
  // exec and portforward are WebSocket upgrades of a GET (exec.ts builds their paths itself);
  // the apiserver authorizes them as get, and since 1.30 as create too: both are granted
  const ws = readFileSync(join(ROOT, 'src/drivers/kubernetes/exec.ts'), 'utf8');
  for (const m of ws.matchAll(/\/pods\/\$\{[^}]+\}\/(exec|portforward)\?/g)) for (const v of ['get', 'create']) calls.add(`pods/${m[1]} ${v}`);
  return calls;
}

test('RBAC: the driver\'s service account may do exactly what the driver calls, in its namespace only', () => {
  const calls = driverCalls();
  const workloads = configMap.data.GANTRY_KUBE_NAMESPACE ?? 'gantry';
  assert.equal(configMap.data.GANTRY_COMPUTE_DRIVER, 'kubernetes');
  assert.notEqual(workloads, deployment.metadata.namespace, 'the driver would be granted Secrets in Gantry\'s own namespace');
  const sa = one('ServiceAccount', pod.serviceAccountName);
  assert.equal(sa.metadata.namespace, deployment.metadata.namespace);
  const bindings = applied.filter((o) => o.kind === 'RoleBinding'
    && o.subjects?.some((s: Obj) => s.kind === 'ServiceAccount' && s.name === sa.metadata.name && s.namespace === sa.metadata.namespace));
  assert.ok(bindings.length >= 1, 'no RoleBinding for Gantry\'s service account');
  assert.ok(!applied.some((o) => o.kind === 'ClusterRoleBinding'), 'nothing cluster-wide');
  const granted = new Set<string>();
  for (const b of bindings) {
    assert.equal(b.metadata.namespace, workloads, `RoleBinding ${b.metadata.name} is outside the driver's namespace`);
    assert.equal(b.roleRef.kind, 'Role');
    const role = one('Role', b.roleRef.name);
    assert.equal(role.metadata.namespace, workloads);
    for (const rule of role.rules) {
      assert.deepEqual(rule.apiGroups, [''], 'the driver calls the core API group only');
      for (const r of rule.resources) for (const v of rule.verbs) granted.add(`${r} ${v}`);
    }
  }
  assert.deepEqual([...calls].filter((c) => !granted.has(c)).sort(), [], 'calls of the driver the Role does not grant');
  assert.deepEqual([...granted].filter((g) => !calls.has(g)).sort(), [], 'granted to Gantry but never called by the driver');
});

test('background jobs: on every replica only with a driver whose work any replica may do', () => {
  const runJobs = ![...(server.env ?? []), ...Object.entries(configMap.data).map(([name, value]) => ({ name, value }))]
    .some((e: { name: string; value?: string }) => e.name === 'GANTRY_RUN_JOBS' && ['0', 'false', 'no', 'off'].includes(String(e.value)));
  const driver = configMap.data.GANTRY_COMPUTE_DRIVER ?? 'sim';
  const runners = runJobs ? deployment.spec.replicas : 0;
  assert.ok(runners >= 1, 'no replica runs background jobs');
  // the sim driver's machines live in the process that runs the jobs (docs/production.md, "Replicas and GANTRY_RUN_JOBS")
  if (driver === 'sim') assert.equal(runners, 1, 'with the sim driver jobs run on one replica only');
});

test('secrets come from the Secret only, never written in the Deployment or the ConfigMap', () => {
  const secretLike = /^(DATABASE_URL|REDIS_URL)$|SECRET|PASSWORD|TOKEN|_KEY_ID$/; // the URLs carry passwords
  const example = load('secret.example.yaml')[0]!;
  assert.ok(!applied.some((o) => o.kind === 'Secret'), 'the kustomization ships a Secret: its values would be the same for everyone');
  for (const c of [...pod.initContainers, ...pod.containers]) {
    for (const e of c.env ?? []) {
      if (!secretLike.test(e.name)) continue;
      assert.equal(e.value, undefined, `${c.name}: ${e.name} is written in the Deployment`);
      assert.equal(e.valueFrom?.secretKeyRef?.name, example.metadata.name, `${c.name}: ${e.name} is not from the Secret`);
      assert.ok(e.name in example.stringData, `${c.name}: ${e.name} is read from a key the example Secret does not show`);
    }
  }
  const required = server.env.filter((e: Obj) => e.valueFrom?.secretKeyRef && !e.valueFrom.secretKeyRef.optional).map((e: Obj) => e.name).sort();
  assert.deepEqual(required, ['DATABASE_URL', 'GANTRY_SECRET_KEY', 'REDIS_URL'], 'replicas need the same database, Redis and secret key');
  for (const k of Object.keys(configMap.data)) assert.doesNotMatch(k, secretLike, `${k} is in the ConfigMap`);
  assert.deepEqual(Object.keys(example.stringData).sort(), server.env.map((e: Obj) => e.name).sort(), 'the example Secret and the Deployment name other keys');
});

test('settings are ones Gantry reads', () => {
  const sources = [join(ROOT, 'src/config.ts'), join(ROOT, 'src/drivers/index.ts'), ...readdirSync(join(ROOT, 'src/drivers'), { withFileTypes: true })
    .filter((d) => d.isDirectory()).map((d) => join(ROOT, 'src/drivers', d.name, 'index.ts'))]
    .filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8')).join('\n');
  const names = [...Object.keys(configMap.data), ...server.env.map((e: Obj) => e.name)];
  for (const n of names) assert.ok(sources.includes(`'${n}'`) || sources.includes(`env.${n}`), `${n} is read nowhere in src/config.ts or the drivers`);
});

test('the Service and the PodDisruptionBudget select the Deployment\'s pods; a drain can proceed', () => {
  const labels = deployment.spec.template.metadata.labels as Record<string, string>;
  const selects = (sel: Record<string, string>) => Object.entries(sel).every(([k, v]) => labels[k] === v);
  const service = one('Service', 'gantry');
  assert.ok(selects(service.spec.selector), 'the Service selects other pods');
  const port = server.ports.find((p: { containerPort: number }) => p.containerPort === 8080);
  assert.ok(service.spec.ports.some((p: { targetPort: unknown }) => p.targetPort === port.name || p.targetPort === 8080), 'the Service targets another port');
  const pdb = one('PodDisruptionBudget');
  assert.ok(selects(pdb.spec.selector.matchLabels), 'the PodDisruptionBudget selects other pods');
  assert.ok(typeof pdb.spec.minAvailable === 'number' && pdb.spec.minAvailable >= 1 && pdb.spec.minAvailable < deployment.spec.replicas,
    'minAvailable must keep one pod serving and still let a drain evict one');
});
