// Pure mapping between an instance and Kubernetes objects, unit-tested without a cluster.
// One instance = a ConfigMap (marker + spec; survives stop), a Pod (exists while it runs),
// a Service for its ports, and a dockerconfigjson Secret for a private image.
import type { FailureReason, Observed, WorkloadSpec } from '../types.ts';

export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'gantry' };
export const INSTANCE_LABEL = 'gantry.io/instance';

/** DNS-1123 name from an instance id (ids are lower-case base32 with an underscore). */
export function objectName(id: string): string {
  return `gi-${id.toLowerCase().replace(/[^a-z0-9-]/g, '-')}`.slice(0, 63);
}

function labels(spec: { id: string }): Record<string, string> {
  return { ...MANAGED_BY, [INSTANCE_LABEL]: objectName(spec.id) };
}

/** Entrypoint replaces the image's; the start command runs after it, through a shell. */
export function containerCommand(spec: Pick<WorkloadSpec, 'entrypoint' | 'command'>): { command?: string[] } {
  const line = [spec.entrypoint, spec.command].filter((s) => s?.trim()).join(' ');
  return line ? { command: ['/bin/sh', '-c', line] } : {};
}

export function podManifest(spec: WorkloadSpec, namespace: string) {
  const name = objectName(spec.id);
  const limits: Record<string, string> = { cpu: String(spec.cpuNum), memory: `${spec.memoryGb}Gi`, 'ephemeral-storage': `${spec.rootfsGb}Gi` };
  if (spec.gpuNum > 0) limits['nvidia.com/gpu'] = String(spec.gpuNum);
  const volumes = spec.volumes.map((v, i) => (v.type === 'network'
    ? { name: `vol-${i}`, persistentVolumeClaim: { claimName: v.id } }
    : { name: `vol-${i}`, emptyDir: { sizeLimit: `${v.size || '30'}Gi` } }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: labels(spec), annotations: { 'gantry.io/instance-id': spec.id, 'gantry.io/cluster': spec.clusterId } },
    spec: {
      // A crash ends the run and shows as exited with statusError; the user restarts it.
      restartPolicy: 'Never',
      nodeSelector: spec.nodeSelector,
      ...(spec.imagePullAuth ? { imagePullSecrets: [{ name: `${name}-pull` }] } : {}),
      containers: [{
        name: 'main',
        image: spec.image,
        ...containerCommand(spec),
        env: spec.envs.map((e) => ({ name: e.key, value: e.value })),
        ports: spec.ports.map((p) => ({ containerPort: p.port, protocol: 'TCP', name: `${p.type}-${p.port}`.slice(0, 15) })),
        resources: { limits, requests: { cpu: limits.cpu!, memory: limits.memory! } },
        volumeMounts: spec.volumes.map((v, i) => ({ name: `vol-${i}`, mountPath: v.mountPath })),
      }],
      volumes,
    },
  };
}

export function serviceManifest(spec: WorkloadSpec, namespace: string) {
  if (!spec.ports.length) return undefined;
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
  status?: {
    phase?: string | undefined;
    conditions?: { type?: string; status?: string; reason?: string | undefined; message?: string | undefined }[] | undefined;
    containerStatuses?: {
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

/** Pod phase and container states → the driver contract's observed phase. */
export function observedFromPod(pod: PodLike | undefined, markerExists: boolean): Observed {
  if (!pod) return { phase: markerExists ? 'stopped' : 'absent' };
  if (pod.metadata?.deletionTimestamp) return { phase: markerExists ? 'stopping' : 'deleting' };
  const st = pod.status ?? {};
  const c = st.containerStatuses?.[0]?.state;
  const waiting = c?.waiting?.reason;
  if (waiting && PULL_FAILURES.includes(waiting)) return fail('image_pull_failed', c?.waiting?.message || waiting);
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
