// The docker driver: an instance or a serverless worker is one container of a Docker Engine
// or of Podman's Docker-compatible socket, named after its Gantry id and labelled as
// Gantry's (container.ts). Every call is one to a few engine requests of a few ms; what takes
// longer (a pull, create + start, a kill, a removal) runs in the background of this process
// and describe() reports its phase. The engine is the only state: a new driver (Gantry
// restarted) finds containers by name, and the intents a container cannot carry (a stop
// Gantry asked for, a delete in progress) are marker volumes (drivers/README.md, docker).
// The in-memory bookkeeping of pulls is an optimisation: a pull in flight when the process
// died is started again by the reconciler's next create(). GPUs too: who holds which is each
// container's `io.gantry.gpu-uuids` label, read back from the engine at each allocation.
//
// Why undici and not dockerode: undici is already the project's HTTP client (the gateway's
// upstreams, webhooks, the serverless proxy), speaks HTTP on a unix socket
// (`connect.socketPath`), streams bodies (pull progress, logs) and upgrades connections (the
// hijacked exec stream of the web terminal, exec.ts); dockerode would add a second HTTP stack
// (docker-modem) and ssh2 with its optional native addon, for an API this driver uses a dozen
// calls of.
import type {
  ComputeDriver, DriverInventory, FailureReason, LimitBreach, Observed, WorkloadLogLine, WorkloadPort, WorkloadSpec, WorkloadUsage,
} from '../types.ts';
import {
  type ContainerInspect, createBody, engineName, LABEL, LABEL_PREFIX, libpodCreateBody, LogDemuxer, LogLineTimer, MARKER_KINDS,
  type MarkerKind, markerName, networkAddressOf, observedFromInspect, portsOf, storageVolumeName,
} from './container.ts';
import { EngineClient, EngineError, isNotFound, isStateConflict } from './engine.ts';
import { ImageGate, ImageRefused } from './images.ts';
import { type ExecOptions, type ExecSession, type TerminalSession, type TerminalSize, TerminalUnavailable } from '../types.ts';
import { connect as tcpConnect } from 'node:net';
import type { Duplex, Readable } from 'node:stream';
import { ContainerExecs } from './exec.ts';
import { readContainerFile } from './archive.ts';
import { cdiName, confirmedGpus, type GpuInventory, gpuInventory, heldGpus, pickGpus } from './gpus.ts';
import { isQuotaUnsupported } from './hardening.ts';
import { type DiskUsageAnswer, diskBreaches, type ListedForLimits } from './limits.ts';
import { NetworkPoolExhausted, TeamNetworks } from './networks.ts';
import { addressHostOf, DEFAULT_DOCKER_CLUSTER, type DockerSettings, parseEngineHost } from './settings.ts';
import { readInventory, UsageSampler } from './usage.ts';

/** A workload being made in this process: pull, create, start. */
interface Provision {
  /** the Gantry id (list() answers ids, not engine names) */
  id: string;
  phase: 'creating' | 'pulling';
  failure?: { reason: FailureReason; message: string };
  abort: AbortController;
  /** stop() came while it was being made: it is created, not started */
  stopAsked: boolean;
  /** the GPUs it was given (held until its container, labelled with them, exists) */
  gpus?: string[];
}

class ProvisionFailure extends Error {
  readonly reason: FailureReason;

  constructor(reason: FailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const CREATED = new Set(['created', 'configured', 'initialized']);
/** a disk walk of d ms is followed by at least this times d ms without one */
const LIMITS_REST = 3;
/** how long the GPU inventory is trusted before nvidia-smi is read again */
const INVENTORY_TTL_MS = 30_000;

export interface DockerDriverOptions {
  /** the longest one engine call may take to answer (ms) */
  timeoutMs?: number;
}

export class DockerDriver implements ComputeDriver {
  readonly engine: EngineClient;
  private readonly s: DockerSettings;
  private readonly addressHost: string;
  private readonly provisions = new Map<string, Provision>();
  /** the last background operation queued for each container: they run one after the other */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly queued = new Set<string>();
  /** the last start asked of the engine failed with this (Docker keeps it in State.Error, Podman not always) */
  private readonly startErrors = new Map<string, string>();
  /** a network per team (networks.ts) */
  private readonly networks: TeamNetworks;
  /** whether the storage driver keeps a root filesystem quota (undefined: not tried yet; false: the watchdog holds it) */
  private rootfsQuota: boolean | undefined;
  /** no disk walk before this (performance.now() ms): enforceLimits */
  private limitsRestUntil = 0;
  private infoP: Promise<{ cpus: number; memoryBytes: number }> | undefined;
  /** the GPU inventory, read again after INVENTORY_TTL_MS (a failed read is not kept) */
  private inventoryP: { at: number; p: Promise<GpuInventory> } | undefined;
  /** allocations run one at a time in the process: two creates never get the same GPU */
  private gpuLock: Promise<unknown> = Promise.resolve();
  private readonly life = new AbortController();
  /** the web terminals open on this engine (exec.ts) */
  private readonly terminals: ContainerExecs;
  private closed = false;
  /** usage samples for metrics (usage.ts): keeps each running container's last CPU mark */
  private readonly sampler: UsageSampler;
  /** which image a workload may run, pulled when the registry must say (images.ts) */
  private readonly images: ImageGate;
  /** the server's GPUs, the inventory of its cluster (GANTRY_DOCKER_CLUSTER): the catalogue follows them */
  readonly inventory: DriverInventory;

  constructor(settings: DockerSettings, opts: DockerDriverOptions = {}) {
    const target = parseEngineHost(settings.host);
    if (!target) throw new Error(`not an engine address: ${settings.host}`);
    this.s = settings;
    this.addressHost = addressHostOf(settings);
    this.engine = new EngineClient(target, opts);
    this.networks = new TeamNetworks(this.engine, settings.network);
    this.terminals = new ContainerExecs(this.engine);
    this.sampler = new UsageSampler(this.engine, settings);
    this.images = new ImageGate(this.engine, settings);
    this.inventory = { clusterId: settings.cluster ?? DEFAULT_DOCKER_CLUSTER, gpus: () => readInventory(settings) };
  }

  // -------------------------------------------------------------------------------------
  // the contract

  async create(spec: WorkloadSpec): Promise<void> {
    this.assertOpen();
    const name = engineName(spec.id);
    if (this.provisions.has(name)) return;
    if (await this.inspect(name)) return; // made already (a 'created' one is started by describe)
    // markers of an earlier life of this name would say stop/delete/limit about the new one
    await this.dropMarkers(name);
    this.startErrors.delete(name);
    this.provision(spec, name);
  }

  async describe(id: string): Promise<Observed> {
    const name = engineName(id);
    const c = await this.inspect(name);
    if (!c) {
      const p = this.provisions.get(name);
      if (p) return p.failure ? { phase: 'failed', ...p.failure } : { phase: p.phase };
      // a delete that has finished: its markers go with it
      if (await this.hasMarker('delete', name)) await this.dropMarkers(name);
      return { phase: 'absent' };
    }
    const [stopAsked, deleting, limit, { engine }] = await Promise.all([
      this.hasMarker('stop', name), this.hasMarker('delete', name), this.marker('limit', name), this.engine.version(),
    ]);
    if (deleting) {
      this.background(name, 'remove', () => this.remove(name));
      return { phase: 'deleting' };
    }
    const limitBreach = limit ? (limit[LABEL.reason] || 'over a disk limit') : undefined;
    // stopped for a limit and still running (the kill failed, or Gantry restarted meanwhile): kill it
    if (limitBreach && c.State.Status === 'running') this.background(name, 'kill', () => this.kill(name));
    const o = observedFromInspect(c, { stopAsked, engine, startError: this.startErrors.get(name), limitBreach });
    // made but never started (Gantry died between create and start): start it now
    if (o.phase === 'starting' && CREATED.has(c.State.Status) && !this.provisions.has(name)) {
      this.background(name, 'start', () => this.startContainer(name));
    }
    return o;
  }

  async start(spec: WorkloadSpec): Promise<void> {
    this.assertOpen();
    const name = engineName(spec.id);
    const c = await this.inspect(name);
    if (!c) {
      const p = this.provisions.get(name);
      if (p && !p.failure) {
        p.stopAsked = false;
        await this.dropMarkers(name, ['stop']);
        return;
      }
      this.provisions.delete(name); // a failed pull: try again
      return this.create(spec);
    }
    // a new run: a stop asked before, or a limit the last run went over, is about that run
    await this.dropMarkers(name, ['stop', 'limit']);
    if (c.State.Status === 'running' || c.State.Status === 'removing') return;
    this.startErrors.delete(name);
    this.background(name, 'start', () => this.startContainer(name));
  }

  async stop(id: string): Promise<void> {
    const name = engineName(id);
    const p = this.provisions.get(name);
    if (!p && !(await this.inspect(name))) return; // nothing to stop
    await this.putMarker('stop', name, id);
    if (p) p.stopAsked = true;
    // a kill, not POST /stop?t=…, which waits out the grace period
    this.background(name, 'kill', () => this.kill(name));
  }

  async delete(id: string): Promise<void> {
    const name = engineName(id);
    const p = this.provisions.get(name);
    if (p) {
      p.abort.abort();
      this.provisions.delete(name);
    }
    this.startErrors.delete(name);
    if (!(await this.inspect(name))) {
      await this.dropMarkers(name);
      return;
    }
    await this.putMarker('delete', name, id);
    this.background(name, 'remove', () => this.remove(name));
  }

  async address(id: string): Promise<string | undefined> {
    return (await this.ports(id))[0]?.endpoint;
  }

  /** `host:hostPort` of every published port (from inspect) while it runs and no stop or delete is under way. */
  async ports(id: string): Promise<WorkloadPort[]> {
    const name = engineName(id);
    const c = await this.inspect(name);
    if (c?.State.Status !== 'running') return [];
    const [stopAsked, deleting] = await Promise.all([this.hasMarker('stop', name), this.hasMarker('delete', name)]);
    return stopAsked || deleting ? [] : portsOf(c, this.addressHost);
  }

  /**
   * The ids of every container labelled as Gantry's (`io.gantry.managed=true`, its id in
   * `io.gantry.id`), whatever its state, and of workloads being made in this process.
   */
  async list(): Promise<string[]> {
    const rows = await this.engine.json<{ Labels?: Record<string, string> | null }[]>('GET', '/containers/json', {
      query: { all: 1, filters: JSON.stringify({ label: [`${LABEL.managed}=true`] }) },
    });
    const ids = new Set<string>();
    for (const r of rows ?? []) {
      const id = r.Labels?.[LABEL.id];
      if (id) ids.add(id);
    }
    for (const p of this.provisions.values()) ids.add(p.id);
    return [...ids];
  }

  async logs(id: string, afterMs: number, limit: number): Promise<WorkloadLogLine[]> {
    if (limit <= 0 || this.closed) return [];
    let res: Awaited<ReturnType<EngineClient['stream']>>;
    try {
      res = await this.engine.stream('GET', `/containers/${engineName(id)}/logs`, {
        // whole seconds: a read starts at a second's beginning (LogLineTimer)
        query: { stdout: 1, stderr: 1, timestamps: 1, since: afterMs > 0 ? Math.floor(afterMs / 1000) : undefined },
        signal: this.life.signal,
      });
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
    const out: WorkloadLogLine[] = [];
    const demux = new LogDemuxer();
    const timer = new LogLineTimer();
    let pending = '';
    try {
      for await (const chunk of res.body) {
        pending += demux.push(chunk as Buffer);
        const rows = pending.split('\n');
        pending = rows.pop()!; // a line still being written is read next time, whole
        for (const row of rows) {
          const l = timer.line(row);
          if (l && l.atMs > afterMs) out.push(l);
          if (out.length >= limit) return out;
        }
      }
    } finally {
      res.body.destroy();
    }
    return out;
  }

  /** Every running container's CPU, memory and GPUs now (usage.ts): one nvidia-smi reading, one stats call each. */
  async usage(): Promise<WorkloadUsage[]> {
    if (this.closed) return [];
    return this.sampler.sample();
  }

  /**
   * Every running container's disk use against the limits it was made with (limits.ts: its
   * writable layer within its rootfsGb, each volume within its size), from one engine-wide
   * reading (`GET /system/df`, which walks them); one over a limit gets a limit marker with
   * the breach and is killed, and describe() reports it `failed`, `disk_limit_exceeded`.
   * Where the storage driver keeps a quota the layer cannot pass it; the volumes still can.
   * The walk's cost grows with the files on the engine (1.5-2.2 s for 100 000 here,
   * bench/docker-disk-walk.ts): a walk of d
   * is followed by at least LIMITS_REST × d without one, so it never takes more than a
   * quarter of a core however often it is asked.
   */
  async enforceLimits(): Promise<LimitBreach[]> {
    if (this.closed || performance.now() < this.limitsRestUntil) return [];
    const began = performance.now();
    try {
      return await this.enforceLimitsNow();
    } finally {
      const end = performance.now();
      this.limitsRestUntil = end + LIMITS_REST * (end - began);
    }
  }

  private async enforceLimitsNow(): Promise<LimitBreach[]> {
    const running = (await this.engine.json<ListedForLimits[]>('GET', '/containers/json', {
      query: { filters: JSON.stringify({ label: [`${LABEL.managed}=true`], status: ['running'] }) },
    })) ?? [];
    if (!running.length) return [];
    const df = (await this.engine.json<DiskUsageAnswer>('GET', '/system/df', { timeoutMs: 120_000 })) ?? {};
    const stopped: LimitBreach[] = [];
    for (const b of diskBreaches(running, df)) {
      if (await this.marker('limit', b.name)) continue; // stopped for it already (describe() sees the kill through)
      await this.putMarker('limit', b.name, b.id, { [LABEL.reason]: b.message });
      this.background(b.name, 'kill', () => this.kill(b.name));
      stopped.push({ id: b.id, message: b.message });
    }
    return stopped;
  }

  /** A shell in the running container, on a TTY (exec.ts): the web terminal. */
  async terminal(id: string, size: TerminalSize): Promise<TerminalSession> {
    this.assertOpen();
    return this.terminals.open(engineName(id), size);
  }

  /** A process in the running container (exec.ts): the SSH endpoint's shells, commands and SFTP. */
  async exec(id: string, options: ExecOptions): Promise<ExecSession> {
    this.assertOpen();
    return this.terminals.exec(engineName(id), options);
  }

  /** A regular file of the container through the engine's archive API (archive.ts): SFTP downloads. */
  async readFile(id: string, path: string): Promise<Readable | undefined> {
    this.assertOpen();
    return readContainerFile(this.engine, engineName(id), path);
  }

  /**
   * A TCP connection to `port` of the running container at its address on its team's network
   * (networkAddressOf), which the host Gantry runs on reaches (a bridge network), published or
   * not: the SSH endpoint's `ssh -L`. Only that one container's address is ever dialled.
   */
  async connect(id: string, port: number): Promise<Duplex> {
    this.assertOpen();
    const c = await this.inspect(engineName(id));
    const ip = c?.State.Status === 'running' ? networkAddressOf(c) : undefined;
    if (!ip) throw new TerminalUnavailable(`the container of ${id} does not run`);
    return new Promise((resolve, reject) => {
      const socket = tcpConnect({ host: ip, port, timeout: 10_000 });
      socket.once('connect', () => {
        socket.setTimeout(0);
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('timeout', () => socket.destroy(new Error(`port ${port} of ${id} did not answer in 10 s`)));
      socket.once('error', reject);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.life.abort();
    await this.terminals.close();
    for (const p of this.provisions.values()) p.abort.abort();
    await this.engine.close();
  }

  // -------------------------------------------------------------------------------------
  // making a workload: capacity, network, storage, image, create, start

  private provision(spec: WorkloadSpec, name: string): void {
    const p: Provision = { id: spec.id, phase: 'creating', abort: new AbortController(), stopAsked: false };
    this.provisions.set(name, p);
    this.provisionSteps(spec, name, p).then(
      () => {
        if (this.provisions.get(name) === p) this.provisions.delete(name);
      },
      (err: unknown) => {
        if (this.provisions.get(name) !== p || p.abort.signal.aborted || this.closed) return;
        p.failure = err instanceof ProvisionFailure ? { reason: err.reason, message: err.message } : { reason: 'unknown', message: messageOf(err) };
      },
    );
  }

  private async provisionSteps(spec: WorkloadSpec, name: string, p: Provision): Promise<void> {
    const signal = AbortSignal.any([this.life.signal, p.abort.signal]);
    const info = await this.info();
    if (spec.cpuNum > info.cpus) throw new ProvisionFailure('insufficient_resource', `the workload asks ${spec.cpuNum} CPUs; the engine's machine has ${info.cpus}`);
    if (spec.memoryGb * 1024 ** 3 > info.memoryBytes) {
      throw new ProvisionFailure('insufficient_resource', `the workload asks ${spec.memoryGb} GB of memory; the engine's machine has ${Math.floor(info.memoryBytes / 1024 ** 3)} GB`);
    }
    const gpus = spec.gpuNum > 0 ? await this.allocateGpus(name, spec.gpuNum, p) : [];
    for (const v of spec.volumes.filter((x) => x.type === 'network')) {
      await this.engine.json('POST', '/volumes/create', {
        body: { Name: storageVolumeName(v.id), Labels: { [LABEL.managed]: 'true', [LABEL.storage]: v.id } }, signal,
      });
    }
    const image = await this.image(spec, p, signal);
    if (signal.aborted) return;
    try {
      await this.createInTeamNetwork({ ...spec, image }, name, gpus, signal);
    } catch (err) {
      if (signal.aborted) {
        // the engine may have made it all the same: a delete came meanwhile, so it goes
        await this.remove(name).catch(() => {});
        return;
      }
      if (!(err instanceof EngineError) || err.status !== 409) throw createFailure(err);
      // 409: the name is taken; by this very workload (another create won), or by a container that is not Gantry's
      if (!(await this.inspect(name))) throw new ProvisionFailure('unknown', `a container named ${name} exists and is not Gantry's (no ${LABEL.managed}=true label)`);
    }
    if (signal.aborted) return this.remove(name).catch(() => {});
    if (p.stopAsked) return;
    await this.startContainer(name);
  }

  /**
   * The container, made on its team's network under the team's lock (networks.ts); a network
   * removed under us (not found) is made again, once.
   */
  private async createInTeamNetwork(spec: WorkloadSpec, name: string, gpus: string[], signal: AbortSignal): Promise<void> {
    const imageLabelKeys = await this.imageLabelKeys(spec.image);
    for (let attempt = 0; ; attempt++) {
      try {
        await this.networks.withNetwork(spec.teamId, () => this.createContainer(spec, name, gpus, imageLabelKeys, signal));
        return;
      } catch (err) {
        if (attempt > 0 || !isNotFound(err) || !/network/i.test(messageOf(err))) throw err;
        this.networks.forget(spec.teamId);
      }
    }
  }

  /**
   * POST /containers/create, asking the storage driver's quota for the root filesystem until
   * the engine says it has none (then the watchdog, enforceLimits, holds it); on Podman with
   * GPUs, libpod's create with the GPUs' CDI names as devices (its Docker-compatible API would
   * start the container without them).
   */
  private async createContainer(spec: WorkloadSpec, name: string, gpus: string[], imageLabelKeys: string[], signal: AbortSignal): Promise<void> {
    const quota = this.rootfsQuota !== false && spec.rootfsGb > 0;
    try {
      await this.sendCreate(name, createBody(spec, this.s, gpus, { imageLabelKeys, rootfsQuota: quota }), gpus, signal);
      if (quota) this.rootfsQuota = true;
    } catch (err) {
      if (!quota || !isQuotaUnsupported(messageOf(err))) throw err;
      this.rootfsQuota = false; // e.g. overlay2 on ext4: the engine refused before making anything
      await this.sendCreate(name, createBody(spec, this.s, gpus, { imageLabelKeys }), gpus, signal);
    }
  }

  private async sendCreate(name: string, body: Record<string, unknown>, gpus: string[], signal: AbortSignal): Promise<void> {
    if (gpus.length && (await this.engine.version()).engine === 'podman') {
      await this.engine.json('POST', '/containers/create', { libpod: true, body: libpodCreateBody(name, body, gpus.map(cdiName)), signal });
      return;
    }
    await this.engine.json('POST', '/containers/create', { query: { name }, body, signal });
  }

  /** The `io.gantry.*` labels the image carries (the container would inherit them: createBody sets them empty). */
  private async imageLabelKeys(ref: string): Promise<string[]> {
    const image = await this.engine.json<{ Config?: { Labels?: Record<string, string> | null } | null }>('GET', `/images/${ref}/json`);
    return Object.keys(image?.Config?.Labels ?? {}).filter((k) => k.startsWith(LABEL_PREFIX));
  }

  /** The id of the image the workload may run (images.ts), pulled when the rules say so. */
  private async image(spec: WorkloadSpec, p: Provision, signal: AbortSignal): Promise<string> {
    try {
      return await this.images.authorize(spec, signal, () => {
        p.phase = 'pulling';
      });
    } catch (err) {
      if (err instanceof ImageRefused) throw new ProvisionFailure('image_pull_failed', err.message);
      throw err;
    } finally {
      p.phase = 'creating';
    }
  }

  // -------------------------------------------------------------------------------------
  // GPUs: the engine's labels are the record of who holds what (drivers/README.md, docker)

  /**
   * `n` free GPUs for the workload being made (`p` holds them until its container, labelled
   * with them, exists), or `insufficient_resource` saying how many are free. One allocation
   * at a time in the process.
   */
  private allocateGpus(name: string, n: number, p: Provision): Promise<string[]> {
    const run = this.gpuLock.then(async () => {
      const inventory = await this.gpuInventory();
      const held = await this.heldGpus(name);
      const gpus = pickGpus(inventory.gpus, held, n);
      if (!gpus) {
        const free = inventory.gpus.filter((g) => !held.has(g.uuid)).length;
        const why = inventory.gpus.length
          ? `${free} of the server's ${inventory.gpus.length} GPUs ${free === 1 ? 'is' : 'are'} free`
          : `the server has no GPUs${inventory.error ? ` (${inventory.error})` : ''}`;
        throw new ProvisionFailure('insufficient_resource', `the workload asks ${n} GPU${n === 1 ? '' : 's'}; ${why}`);
      }
      if (!p.abort.signal.aborted) p.gpus = gpus;
      return gpus;
    });
    this.gpuLock = run.catch(() => {});
    return run;
  }

  /**
   * The GPUs held, by every container of ours while it exists (those its label names that the
   * engine's record of it names too: gpus.ts confirmedGpus), except one being deleted that no
   * longer runs, and by workloads being made in this process whose container is not there
   * yet. `name` is the one asking.
   */
  private async heldGpus(name: string): Promise<Set<string>> {
    const rows = await this.engine.json<{ Names?: string[]; State?: string; Labels?: Record<string, string> | null }[]>('GET', '/containers/json', {
      query: { all: 1, filters: JSON.stringify({ label: [`${LABEL.managed}=true`] }) },
    });
    const held = new Set<string>();
    await Promise.all((rows ?? []).map(async (r) => {
      const uuids = heldGpus(r.Labels?.[LABEL.gpuUuids]);
      const cname = (r.Names?.[0] ?? '').replace(/^\//, '');
      if (!uuids.length || cname === name) return;
      if (r.State !== 'running' && (await this.hasMarker('delete', cname))) return; // gone but for its removal
      const c = await this.inspect(cname);
      for (const u of c ? confirmedGpus(c) : []) held.add(u);
    }));
    for (const [n, p] of this.provisions) if (n !== name && !p.failure) for (const u of p.gpus ?? []) held.add(u);
    return held;
  }

  private gpuInventory(): Promise<GpuInventory> {
    const now = performance.now();
    if (!this.inventoryP || now - this.inventoryP.at > INVENTORY_TTL_MS) {
      const p = gpuInventory({ configured: this.s.gpus, nvidiaSmi: this.s.nvidiaSmi ?? 'nvidia-smi' });
      const entry = { at: now, p };
      this.inventoryP = entry;
      void p.then((inv) => {
        if (inv.error && this.inventoryP === entry) this.inventoryP = undefined; // a failed read is tried again next time
      });
    }
    return this.inventoryP.p;
  }

  private info(): Promise<{ cpus: number; memoryBytes: number }> {
    this.infoP ??= this.engine.json<{ NCPU?: number; MemTotal?: number }>('GET', '/info').then((i) => ({
      cpus: i?.NCPU ?? Number.POSITIVE_INFINITY, memoryBytes: i?.MemTotal ?? Number.POSITIVE_INFINITY,
    }));
    this.infoP.catch(() => {
      this.infoP = undefined;
    });
    return this.infoP;
  }

  // -------------------------------------------------------------------------------------
  // background operations, one at a time per container

  /** Queues `op` after the container's earlier ones, unless the same op is queued already. */
  private background(name: string, op: string, fn: () => Promise<void>): void {
    const key = `${op}:${name}`;
    if (this.closed || this.queued.has(key)) return;
    this.queued.add(key);
    const run = (this.chains.get(name) ?? Promise.resolve())
      .then(() => (this.closed ? undefined : fn()))
      .catch(() => {}) // each op is retried by the next reconciler call that needs it
      .finally(() => {
        this.queued.delete(key);
        if (this.chains.get(name) === run) this.chains.delete(name);
      });
    this.chains.set(name, run);
  }

  private async startContainer(name: string): Promise<void> {
    try {
      await this.engine.json('POST', `/containers/${name}/start`, { signal: this.life.signal, timeoutMs: 60_000 });
      this.startErrors.delete(name);
    } catch (err) {
      if (isNotFound(err) || isStateConflict(err) || this.closed) return; // gone, or running already
      this.startErrors.set(name, messageOf(err));
    }
  }

  private async kill(name: string): Promise<void> {
    try {
      await this.engine.json('POST', `/containers/${name}/kill`, { signal: this.life.signal });
    } catch (err) {
      if (!isNotFound(err) && !isStateConflict(err)) throw err; // gone, or not running
    }
  }

  /**
   * Kill, then remove (with its anonymous volumes; network storage stays); once it is gone its
   * markers go, and its team's network when it was the team's last container.
   */
  private async remove(name: string): Promise<void> {
    const team = (await this.inspect(name))?.Config?.Labels?.[LABEL.team];
    await this.kill(name);
    try {
      await this.engine.json('DELETE', `/containers/${name}`, { query: { v: 1, force: 1 }, signal: this.life.signal, timeoutMs: 60_000 });
    } catch (err) {
      if (!isNotFound(err) && !isStateConflict(err)) throw err; // a removal in progress already
    }
    if (await this.inspect(name)) return;
    await this.dropMarkers(name);
    if (team) await this.networks.dropIfUnused(team);
  }

  // -------------------------------------------------------------------------------------
  // reads and markers

  private async inspect(name: string): Promise<ContainerInspect | undefined> {
    try {
      const c = await this.engine.json<ContainerInspect>('GET', `/containers/${name}/json`);
      // a container of that name that is not Gantry's is none of ours
      return c?.Config?.Labels?.[LABEL.managed] === 'true' ? c : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** The marker's labels, undefined when there is none. */
  private async marker(kind: MarkerKind, name: string): Promise<Record<string, string> | undefined> {
    try {
      const v = await this.engine.json<{ Labels?: Record<string, string> | null }>('GET', `/volumes/${markerName(kind, name)}`);
      return v?.Labels ?? {};
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async hasMarker(kind: MarkerKind, name: string): Promise<boolean> {
    return (await this.marker(kind, name)) !== undefined;
  }

  private async putMarker(kind: MarkerKind, name: string, id: string, extra: Record<string, string> = {}): Promise<void> {
    // creating a volume that exists answers 201 on both engines
    await this.engine.json('POST', '/volumes/create', {
      body: { Name: markerName(kind, name), Labels: { ...extra, [LABEL.managed]: 'true', [LABEL.marker]: kind, [LABEL.id]: id } },
    });
  }

  private async dropMarkers(name: string, kinds: readonly MarkerKind[] = MARKER_KINDS): Promise<void> {
    await Promise.all(kinds.map(async (kind) => {
      try {
        await this.engine.json('DELETE', `/volumes/${markerName(kind, name)}`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }));
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the docker driver is closed');
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Why the engine refused to create the container, as a failure reason. */
function createFailure(err: unknown): ProvisionFailure {
  const message = messageOf(err);
  if (err instanceof NetworkPoolExhausted) {
    return new ProvisionFailure('insufficient_resource', `the engine has no address range left for the team's network (${message}); an operator widens the engine's default address pools`);
  }
  if (isNotFound(err) && /image/i.test(message)) return new ProvisionFailure('image_pull_failed', message); // the image went between the pull and the create
  if (/range of cpus|cpus? (are|is)? ?available/i.test(message)) return new ProvisionFailure('insufficient_resource', message);
  return new ProvisionFailure('unknown', message);
}
