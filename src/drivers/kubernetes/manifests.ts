// Pure mapping between a workload and Kubernetes objects, unit-tested without a cluster.
// One instance = a ConfigMap (marker + spec; survives stop), a Pod (exists while it runs),
// a Service for its ports, and a dockerconfigjson Secret for a private image. A serverless
// worker (`spec.worker`) is the same minus the Service (the router reaches the pod IP), named
// after its id, labelled with its endpoint, with a readiness probe from the endpoint's `healthy`.
import type { FailureReason, Observed, WorkerSpecPart, WorkloadSpec } from '../types.ts';
import { createHash } from 'node:crypto';
import { pullFailureMessage } from '../pull-failure.ts';

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'gantry' };
export const INSTANCE_LABEL = 'gantry.io/instance';
export const ROLE_LABEL = 'gantry.dev/role';
export const ENDPOINT_LABEL = 'gantry.dev/endpoint';
export const TEAM_LABEL = 'gantry.dev/team';
export const STORAGE_LABEL = 'gantry.dev/storage';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * DNS-1123 name from a workload id. describe/stop/delete/address get only the id, so the name
 * must follow from it alone: an id that is already a DNS label (worker ids `wk-…`, newDnsId)
 * is the name as it is; instance ids (`ins_…`, lower-case base32 with an underscore, never a
 * DNS label) become `gi-<id>` with `-` for `_`, as they always have.
 */
export function objectName(id: string): string {
  if (id.length <= 63 && DNS_LABEL.test(id)) return id;
  return dnsLabel('gi-', id);
}

/**
 * A DNS-1123 label (and DNS-1035: it starts with the prefix's letter) from `prefix` and an
 * id: lower case, `-` for any other character. Gantry's ids are lower-case base32 and `_`
 * (lib/ids.ts), so this is one-to-one on them; one too long for a label (63) keeps its head
 * and a hash of the whole id, never a cut that ends in `-` or names two ids alike.
 */
function dnsLabel(prefix: string, id: string): string {
  const name = `${prefix}${id.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`;
  if (name.length <= 63 && DNS_LABEL.test(name)) return name;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 10);
  return `${name.slice(0, 52).replace(/-+$/, '')}-${hash}`;
}

/**
 * The PersistentVolumeClaim of a network storage. Its id (`nst_…`) cannot name one (a
 * DNS-1123 subdomain: no `_`, issue 45), so the claim is `gns-<id>` with `-` for `_`: the
 * same for every instance and worker that mounts the storage, from the id alone.
 */
export function storageClaimName(storageId: string): string {
  return dnsLabel('gns-', storageId);
}

function labels(spec: Pick<WorkloadSpec, 'id' | 'teamId' | 'worker'>): Record<string, string> {
  if (spec.worker) return { ...MANAGED_BY, [ROLE_LABEL]: 'worker', [ENDPOINT_LABEL]: spec.worker.endpointId, [TEAM_LABEL]: spec.teamId };
  return { ...MANAGED_BY, [INSTANCE_LABEL]: objectName(spec.id), [TEAM_LABEL]: spec.teamId };
}

/** The selector of every object the driver makes. */
export const MANAGED_SELECTOR = 'app.kubernetes.io/managed-by=gantry';

/** A probe field as Kubernetes accepts it: a whole number of at least `min`. */
function probeInt(value: number, min: number): number {
  return Number.isFinite(value) ? Math.max(min, Math.ceil(value)) : min;
}

/**
 * The endpoint's `healthy` as a readiness probe on the worker's port. Kubernetes rejects the
 * pod when periodSeconds, timeoutSeconds, successThreshold or failureThreshold is below 1
 * (initialDelaySeconds below 0) or not a whole number, and one refused create would leave the
 * worker stuck creating: such values are raised to the nearest one it accepts (a 0 s timeout
 * becomes 1 s, a fraction of a second is rounded up) instead of refused here. The interface's
 * thresholds mean what Kubernetes' do for readiness: consecutive successes to count as
 * healthy again after a failure, consecutive failures to count as unhealthy after a success.
 */
export function readinessProbe(health: WorkerSpecPart['health'], port: number) {
  const path = health.path?.trim() || '/';
  return {
    httpGet: { path: path.startsWith('/') ? path : `/${path}`, port, scheme: 'HTTP' },
    initialDelaySeconds: probeInt(health.initialDelay, 0),
    periodSeconds: probeInt(health.period, 1),
    timeoutSeconds: probeInt(health.timeout, 1),
    successThreshold: probeInt(health.successThreshold, 1),
    failureThreshold: probeInt(health.failureThreshold, 1),
  };
}

/** Entrypoint replaces the image's; the start command runs after it, through a shell. */
export function containerCommand(spec: Pick<WorkloadSpec, 'entrypoint' | 'command'>): { command?: string[] } {
  const line = [spec.entrypoint, spec.command].filter((s) => s?.trim()).join(' ');
  return line ? { command: ['/bin/sh', '-c', line] } : {};
}

export function podManifest(spec: WorkloadSpec, namespace: string) {
  const name = objectName(spec.id);
  const worker = spec.worker;
  // an endpoint has exactly one HTTP port (spec validation): without it a worker could be
  // neither probed nor routed to, and would only burn GPU time
  if (worker && !spec.ports.length) throw new Error(`worker ${spec.id} has no port to probe and route to`);
  const limits: Record<string, string> = { cpu: String(spec.cpuNum), memory: `${spec.memoryGb}Gi`, 'ephemeral-storage': `${spec.rootfsGb}Gi` };
  if (spec.gpuNum > 0) limits['nvidia.com/gpu'] = String(spec.gpuNum);
  const volumes = spec.volumes.map((v, i) => (v.type === 'network'
    ? { name: `vol-${i}`, persistentVolumeClaim: { claimName: storageClaimName(v.id) } }
    : { name: `vol-${i}`, emptyDir: { sizeLimit: `${v.size || '30'}Gi` } }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name, namespace, labels: labels(spec),
      // a worker's name is its id
      annotations: worker ? { 'gantry.io/cluster': spec.clusterId } : { 'gantry.io/instance-id': spec.id, 'gantry.io/cluster': spec.clusterId },
    },
    spec: {
      // A crash ends the run and shows as exited with statusError; the user restarts it.
      // A worker too: its crash must show as failed so Gantry replaces it with a new worker
      // (fresh admission, a new id, counted towards "three failed before healthy" that fails
      // the endpoint). With OnFailure/Always the kubelet would restart it in place, behind
      // Gantry's back, in the same billed run and under the same id.
      restartPolicy: 'Never',
      nodeSelector: spec.nodeSelector,
      ...(spec.imagePullAuth ? { imagePullSecrets: [{ name: `${name}-pull` }] } : {}),
      containers: [{
        name: 'main',
        image: spec.image,
        // The kubelet pulls again at every pod start, with this pod's secret (or none): a node
        // keeps what any team pulled, and IfNotPresent (the default for a tagged image) would
        // run another team's private image without its credential (Kubernetes'
        // AlwaysPullImages, issue 40). Layers the node has are not downloaded again.
        imagePullPolicy: 'Always',
        ...containerCommand(spec),
        env: spec.envs.map((e) => ({ name: e.key, value: e.value })),
        ports: spec.ports.map((p) => ({ containerPort: p.port, protocol: 'TCP', name: `${p.type}-${p.port}`.slice(0, 15) })),
        resources: { limits, requests: { cpu: limits.cpu!, memory: limits.memory! } },
        volumeMounts: spec.volumes.map((v, i) => ({ name: `vol-${i}`, mountPath: v.mountPath })),
        ...(worker ? { readinessProbe: readinessProbe(worker.health, spec.ports[0]!.port) } : {}),
      }],
      volumes,
    },
  };
}

export function serviceManifest(spec: WorkloadSpec, namespace: string) {
  // a worker has none: the serverless router sends each request to one chosen pod's address
  if (!spec.ports.length || spec.worker) return undefined;
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: objectName(spec.id), namespace, labels: labels(spec) },
    spec: {
      selector: { [INSTANCE_LABEL]: objectName(spec.id) },
      ports: spec.ports.map((p) => ({ name: `${p.type}-${p.port}`.slice(0, 15), port: p.port, targetPort: p.port, protocol: 'TCP' })),
    },
  };
}

export function pullSecretManifest(spec: WorkloadSpec, namespace: string) {
  const a = spec.imagePullAuth;
  if (!a) return undefined;
  const auth = Buffer.from(`${a.username}:${a.password}`).toString('base64');
  const config = { auths: { [a.server]: { username: a.username, password: a.password, auth } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: { name: `${objectName(spec.id)}-pull`, namespace, labels: labels(spec) },
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}

/**
 * The claims of the workload's network storages, made at its first mount and kept after (a
 * storage outlives its instances): shared by the instances that mount it (ReadWriteMany), of
 * the storage's size, in the cluster's default storage class. Labelled as Gantry's, with the
 * storage's id and team, not the instance's: no instance's delete removes it.
 */
export function storageClaimManifests(spec: WorkloadSpec, namespace: string) {
  return spec.volumes.filter((v) => v.type === 'network').map((v) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: storageClaimName(v.id), namespace, labels: { ...MANAGED_BY, [STORAGE_LABEL]: storageClaimName(v.id), [TEAM_LABEL]: spec.teamId }, annotations: { 'gantry.io/storage-id': v.id } },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: `${Number(v.size) > 0 ? Number(v.size) : 1}Gi` } } },
  }));
}

/** The marker that says "this instance exists" even while it has no pod (stopped). */
export function markerManifest(spec: WorkloadSpec, namespace: string) {
  const { imagePullAuth: _secret, ...withoutSecret } = spec;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: objectName(spec.id), namespace, labels: labels(spec) },
    data: { spec: JSON.stringify(withoutSecret) },
  };
}

// ---- reading state back ----
export interface PodLike {
  metadata?: { deletionTimestamp?: Date | string | undefined } | undefined;
  spec?: {
    containers?: { image?: string | undefined; ports?: { containerPort?: number | undefined }[] | undefined }[] | undefined;
    imagePullSecrets?: unknown[] | undefined;
  } | undefined;
  status?: {
    phase?: string | undefined;
    podIP?: string | undefined;
    conditions?: { type?: string; status?: string; reason?: string | undefined; message?: string | undefined }[] | undefined;
    containerStatuses?: {
      image?: string | undefined;
      state?: {
        waiting?: { reason?: string | undefined; message?: string | undefined } | undefined;
        running?: { startedAt?: Date | string | undefined } | undefined;
        terminated?: { reason?: string | undefined; exitCode?: number | undefined; message?: string | undefined; finishedAt?: Date | string | undefined } | undefined;
      } | undefined;
    }[] | undefined;
  } | undefined;
}

const PULL_FAILURES = ['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull', 'RegistryUnavailable'];
const CRASHES = ['CrashLoopBackOff', 'RunContainerError', 'CreateContainerError', 'CreateContainerConfigError'];

function fail(reason: FailureReason, message: string): Observed {
  return { phase: 'failed', reason, message };
}

/**
 * A failed pull in Gantry's words (pull-failure.ts): the kubelet's message carries the
 * container runtime's, which quote what the registry answered.
 */
function podPullFailure(pod: PodLike, reason: string, words: string): string {
  const image = pod.spec?.containers?.[0]?.image ?? pod.status?.containerStatuses?.[0]?.image ?? 'the image';
  if (reason === 'InvalidImageName') return `${JSON.stringify(image.slice(0, 200))} is not an image reference`;
  return pullFailureMessage(image, `${reason} ${words}`, (pod.spec?.imagePullSecrets?.length ?? 0) > 0);
}

/** Pod phase and container states → the driver contract's observed phase. */
export function observedFromPod(pod: PodLike | undefined, markerExists: boolean): Observed {
  if (!pod) return { phase: markerExists ? 'stopped' : 'absent' };
  if (pod.metadata?.deletionTimestamp) return { phase: markerExists ? 'stopping' : 'deleting' };
  const st = pod.status ?? {};
  const c = st.containerStatuses?.[0]?.state;
  const waiting = c?.waiting?.reason;
  if (waiting && PULL_FAILURES.includes(waiting)) return fail('image_pull_failed', podPullFailure(pod, waiting, c?.waiting?.message ?? ''));
  if (waiting && CRASHES.includes(waiting)) return fail('crashed', c?.waiting?.message || waiting);
  switch (st.phase) {
    case 'Pending': {
      const sched = st.conditions?.find((x) => x.type === 'PodScheduled');
      if (sched?.status === 'False' && sched.reason === 'Unschedulable') {
        return fail('insufficient_resource', sched.message || 'no node can hold this pod');
      }
      return { phase: sched?.status === 'True' ? 'pulling' : 'creating' };
    }
    case 'Running': {
      if (c?.running) {
        const at = c.running.startedAt ? new Date(c.running.startedAt).getTime() : 0;
        return { phase: 'running', startedAtMs: at };
      }
      if (c?.terminated) return fail('crashed', `exited with code ${c.terminated.exitCode ?? '?'} (${c.terminated.reason ?? 'terminated'})`);
      return { phase: 'starting' };
    }
    case 'Succeeded':
      return { phase: 'stopped' };
    case 'Failed': {
      const t = c?.terminated;
      const o = fail('crashed', t ? `exited with code ${t.exitCode ?? '?'} (${t.reason ?? 'Error'})` : 'the pod failed');
      if (t?.finishedAt) o.endedAtMs = new Date(t.finishedAt).getTime();
      return o;
    }
    default:
      return { phase: 'creating' };
  }
}

/**
 * `podIP:port` of the first container port while the pod runs as describe() sees it
 * (`running`: not pending, not terminating, container not crashed or exited); an IPv6 pod IP
 * is bracketed so the result is a URL authority. Readiness is not required: the serverless
 * reconciler probes the address itself before it sends traffic (drivers/README.md).
 */
export function addressFromPod(pod: PodLike | undefined): string | undefined {
  if (observedFromPod(pod, true).phase !== 'running') return undefined;
  const ip = pod?.status?.podIP;
  const port = pod?.spec?.containers?.[0]?.ports?.[0]?.containerPort;
  if (!ip || !port) return undefined;
  return `${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
}

/** Which Gantry workload a pod or marker ConfigMap of the driver's is (list()): an instance pod's annotation, the spec a marker holds, a worker pod's name. */
export function workloadIdOf(obj: { metadata?: { name?: string | undefined; annotations?: Record<string, string | undefined> | undefined } | undefined; data?: Record<string, string> | undefined }): string | undefined {
  const a = obj.metadata?.annotations;
  const id = a?.['gantry.io/instance-id'];
  if (id) return id;
  if (obj.data?.spec) {
    try {
      const spec = JSON.parse(obj.data.spec) as { id?: unknown };
      if (typeof spec.id === 'string') return spec.id;
    } catch {
      // not a spec: fall through
    }
  }
  const name = obj.metadata?.name;
  return name && !name.startsWith('gi-') ? name : undefined; // a worker's pod is named by its id
}

/**
 * Every port of a running workload with where it answers: an instance's through its Service
 * (`<cluster IP>:<port>`, or `<service>.<namespace>.svc:<port>` for a Service without one); a
 * worker's (no Service) at the pod IP, as address(). [] unless describe() would say running.
 */
export function portsFromPod(
  pod: PodLike | undefined, spec: Pick<WorkloadSpec, 'id' | 'ports' | 'worker'>, namespace: string,
  service: { spec?: { clusterIP?: string | undefined } | undefined } | undefined,
): { port: number; type: string; endpoint: string }[] {
  if (observedFromPod(pod, true).phase !== 'running') return [];
  if (spec.worker) {
    const ip = pod?.status?.podIP;
    if (!ip) return [];
    const host = ip.includes(':') ? `[${ip}]` : ip;
    return spec.ports.map((p) => ({ port: p.port, type: p.type, endpoint: `${host}:${p.port}` }));
  }
  if (!service) return [];
  const ip = service.spec?.clusterIP;
  const host = ip && ip !== 'None' ? (ip.includes(':') ? `[${ip}]` : ip) : `${objectName(spec.id)}.${namespace}.svc`;
  return spec.ports.map((p) => ({ port: p.port, type: p.type, endpoint: `${host}:${p.port}` }));
}

/** The most of a pod's log read at once (the API server stops there; the next read goes on). */
export const LOG_LIMIT_BYTES = 1024 * 1024;

/**
 * The query of a pod log read for what came after `afterMs`: the API has no sinceTime in
 * this client, so `sinceSeconds` (relative to the API server's wall clock, hence `wallNowMs`,
 * plus a second of slack), and the lines are filtered by their timestamps. A first read
 * takes the last `limit` lines.
 */
export function podLogQuery(afterMs: number, wallNowMs: number, limit: number): { timestamps: true; limitBytes: number; sinceSeconds?: number; tailLines?: number } {
  if (afterMs <= 0) return { timestamps: true, limitBytes: LOG_LIMIT_BYTES, tailLines: limit };
  return { timestamps: true, limitBytes: LOG_LIMIT_BYTES, sinceSeconds: Math.max(1, Math.ceil((wallNowMs - afterMs) / 1000) + 1) };
}

/**
 * Lines of a pod log read with `timestamps=true` (`<RFC 3339 with nanoseconds> <line>`), after
 * `afterMs`, oldest first, at most `limit`. A line cut by limitBytes (no newline at the end
 * of a full read) is left for the next read.
 */
export function podLogLines(text: string, afterMs: number, limit: number): { atMs: number; line: string }[] {
  const rows = text.split('\n');
  if (!text.endsWith('\n') && Buffer.byteLength(text) >= LOG_LIMIT_BYTES) rows.pop();
  const out: { atMs: number; line: string }[] = [];
  for (const row of rows) {
    const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d) ?(.*)$/.exec(row.replace(/\r$/, ''));
    if (!m) continue;
    const atMs = Date.parse(`${m[1]}.${(m[2] ?? '').padEnd(3, '0').slice(0, 3)}${m[3]}`);
    if (!(atMs > afterMs)) continue;
    out.push({ atMs, line: m[4] ?? '' });
    if (out.length >= limit) break;
  }
  return out;
}
