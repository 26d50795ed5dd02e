// The kubernetes driver: instance = Pod (+ Service, pull Secret, marker ConfigMap) in one
// namespace; a serverless worker the same without the Service. Every call is one or a few
// API requests; nothing waits for the pod.
import * as k8s from '@kubernetes/client-node';
import type { Clock } from '../../lib/clock.ts';
import { type ComputeDriver, type ExecOptions, type Observed, type TerminalSize, TerminalUnavailable, type WorkloadLogLine, type WorkloadPort, type WorkloadSpec } from '../types.ts';
import { type PodExec, podExec, podPortForward } from './exec.ts';
import type { Duplex } from 'node:stream';
import {
  addressFromPod, MANAGED_SELECTOR, markerManifest, objectName, observedFromPod, podLogLines, podLogQuery, podManifest, portsFromPod,
  pullSecretManifest, serviceManifest, storageClaimManifests, workloadIdOf,
} from './manifests.ts';

function status(err: unknown): number | undefined {
  const e = err as { code?: number; statusCode?: number; response?: { statusCode?: number } };
  return e?.code ?? e?.statusCode ?? e?.response?.statusCode;
}
async function ignore(codes: number[], p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!codes.includes(status(err) ?? 0)) throw err;
  }
}

export class KubernetesDriver implements ComputeDriver {
  private readonly core: k8s.CoreV1Api;
  private readonly ns: string;
  /** the kubeconfig, for the WebSocket subresources (exec); none: the driver has no exec */
  private readonly kc: k8s.KubeConfig | undefined;
  private readonly execs = new Set<PodExec>();
  private readonly forwards = new Set<Duplex>();

  constructor(core: k8s.CoreV1Api, namespace: string, kc?: k8s.KubeConfig) {
    this.core = core;
    this.ns = namespace;
    this.kc = kc;
  }

  static fromKubeconfig(path: string | undefined, namespace: string, _clock: Clock): KubernetesDriver {
    const kc = new k8s.KubeConfig();
    if (path) kc.loadFromFile(path);
    else kc.loadFromCluster();
    return new KubernetesDriver(kc.makeApiClient(k8s.CoreV1Api), namespace, kc);
  }

  private async ensureAround(spec: WorkloadSpec): Promise<void> {
    const namespace = this.ns;
    await ignore([409], this.core.createNamespacedConfigMap({ namespace, body: markerManifest(spec, namespace) as k8s.V1ConfigMap }));
    const secret = pullSecretManifest(spec, namespace);
    if (secret) {
      // the credential may have changed since the last run: replace it
      await ignore([404], this.core.deleteNamespacedSecret({ name: secret.metadata.name, namespace }));
      await ignore([409], this.core.createNamespacedSecret({ namespace, body: secret as k8s.V1Secret }));
    }
    // a storage's claim, once: it outlives this workload (manifests.ts storageClaimManifests)
    for (const claim of storageClaimManifests(spec, namespace)) {
      await ignore([409], this.core.createNamespacedPersistentVolumeClaim({ namespace, body: claim as k8s.V1PersistentVolumeClaim }));
    }
    const svc = serviceManifest(spec, namespace);
    if (svc) await ignore([409], this.core.createNamespacedService({ namespace, body: svc as k8s.V1Service }));
  }

  async create(spec: WorkloadSpec): Promise<void> {
    await this.ensureAround(spec);
    await ignore([409], this.core.createNamespacedPod({ namespace: this.ns, body: podManifest(spec, this.ns) as k8s.V1Pod }));
  }

  private readPod(id: string): Promise<k8s.V1Pod | undefined> {
    return this.core.readNamespacedPod({ name: objectName(id), namespace: this.ns }).catch((err) => (status(err) === 404 ? undefined : Promise.reject(err)));
  }

  async describe(id: string): Promise<Observed> {
    const name = objectName(id);
    const [pod, marker] = await Promise.all([
      this.readPod(id),
      this.core.readNamespacedConfigMap({ name, namespace: this.ns }).then(() => true, (err) => (status(err) === 404 ? false : Promise.reject(err))),
    ]);
    return observedFromPod(pod as never, marker);
  }

  async start(spec: WorkloadSpec): Promise<void> {
    // a finished (Succeeded/Failed) pod must go before a new one can take its name
    const o = await this.describe(spec.id);
    if (o.phase === 'failed' || o.phase === 'stopped') {
      await ignore([404], this.core.deleteNamespacedPod({ name: objectName(spec.id), namespace: this.ns, gracePeriodSeconds: 0 }));
    }
    await this.create(spec);
  }

  async address(id: string): Promise<string | undefined> {
    return addressFromPod(await this.readPod(id));
  }

  /** Every port while the pod runs: the Service's address for an instance, the pod IP for a worker (manifests.ts, portsFromPod). */
  async ports(id: string): Promise<WorkloadPort[]> {
    const name = objectName(id);
    const namespace = this.ns;
    const orNone = <T>(p: Promise<T>) => p.catch((err) => (status(err) === 404 ? undefined : Promise.reject(err)));
    const [pod, marker, service] = await Promise.all([
      this.readPod(id),
      orNone(this.core.readNamespacedConfigMap({ name, namespace })),
      orNone(this.core.readNamespacedService({ name, namespace })),
    ]);
    let spec: Pick<WorkloadSpec, 'id' | 'ports' | 'worker'> | undefined;
    try {
      spec = marker?.data?.spec ? JSON.parse(marker.data.spec) as WorkloadSpec : undefined;
    } catch {
      spec = undefined;
    }
    // no marker: delete() removes it first, so the workload is going
    return spec ? portsFromPod(pod, spec, namespace, service) : [];
  }

  /** Every workload with a pod or a marker labelled as Gantry's in the namespace. */
  async list(): Promise<string[]> {
    const namespace = this.ns;
    const [pods, markers] = await Promise.all([
      this.core.listNamespacedPod({ namespace, labelSelector: MANAGED_SELECTOR }),
      this.core.listNamespacedConfigMap({ namespace, labelSelector: MANAGED_SELECTOR }),
    ]);
    const ids = new Set<string>();
    for (const o of [...pods.items, ...markers.items]) {
      const id = workloadIdOf(o as never);
      if (id) ids.add(id);
    }
    return [...ids];
  }

  /** The pod's log (its one container); none while there is no pod or its container has not started (400). */
  async logs(id: string, afterMs: number, limit: number): Promise<WorkloadLogLine[]> {
    try {
      // sinceSeconds counts on the API server's wall clock, not Gantry's (injected) one
      const text = await this.core.readNamespacedPodLog({ name: objectName(id), namespace: this.ns, container: 'main', ...podLogQuery(afterMs, Date.now(), limit) });
      return podLogLines(String(text ?? ''), afterMs, limit);
    } catch (err) {
      if (status(err) === 404 || status(err) === 400) return [];
      throw err;
    }
  }

  async stop(id: string): Promise<void> {
    await ignore([404], this.core.deleteNamespacedPod({ name: objectName(id), namespace: this.ns }));
  }

  async delete(id: string): Promise<void> {
    const name = objectName(id);
    const namespace = this.ns;
    await ignore([404], this.core.deleteNamespacedConfigMap({ name, namespace }));
    await ignore([404], this.core.deleteNamespacedPod({ name, namespace }));
    await ignore([404], this.core.deleteNamespacedService({ name, namespace }));
    await ignore([404], this.core.deleteNamespacedSecret({ name: `${name}-pull`, namespace }));
  }

  /**
   * A process in the pod's container `main` through the `exec` subresource (exec.ts: the v5
   * channel WebSocket protocol); TerminalUnavailable when there is no such pod or it does not run.
   */
  async exec(id: string, options: ExecOptions): Promise<PodExec> {
    if (!this.kc) throw new TerminalUnavailable('this kubernetes driver was made without a kubeconfig: no exec');
    const p = await podExec(this.kc, this.ns, objectName(id), 'main', options);
    this.execs.add(p);
    void p.exited().then(() => this.execs.delete(p));
    return p;
  }

  /** `ssh -L`: a TCP connection to `port` of the pod through its `portforward` subresource (exec.ts). */
  async connect(id: string, port: number): Promise<Duplex> {
    if (!this.kc) throw new TerminalUnavailable('this kubernetes driver was made without a kubeconfig: no port-forward');
    const s = await podPortForward(this.kc, this.ns, objectName(id), port);
    this.forwards.add(s);
    s.once('close', () => this.forwards.delete(s));
    return s;
  }

  /** The web terminal: the image's shell on a TTY of `size`, through exec(). */
  terminal(id: string, size: TerminalSize): Promise<PodExec> {
    return this.exec(id, { tty: size });
  }

  /**
   * Closes the exec connections still open; the rest holds nothing: the API client keeps no
   * watch, stream or timer open (each call above is one request, on a connection the client makes for it).
   */
  async close(): Promise<void> {
    for (const s of this.forwards) s.destroy();
    await Promise.all([...this.execs].map((p) => p.close()));
  }
}
