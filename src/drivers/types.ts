// The minimal compute driver contract. Every call is idempotent and returns quickly: long
// work (pulling, starting, stopping) is reported by describe() and advanced by the reconciler.
// A driver is registered once (its kind, its settings, a factory) in index.ts.
import type { Clock } from '../lib/clock.ts';
import type { SettingReaders } from '../lib/settings.ts';
import type { Duplex, Readable, Writable } from 'node:stream';

export interface WorkloadSpec {
  /** the instance id; drivers name their objects after it */
  id: string;
  /** the team it runs for: drivers label their objects with it (docker `io.gantry.team`, kubernetes `gantry.dev/team`) */
  teamId: string;
  clusterId: string;
  image: string;
  /** credentials to pull a private image (decrypted only for the driver) */
  imagePullAuth?: { server: string; username: string; password: string } | undefined;
  command: string;
  entrypoint: string;
  envs: { key: string; value: string }[];
  ports: { port: number; type: string }[];
  gpuNum: number;
  cpuNum: number;
  memoryGb: number;
  rootfsGb: number;
  nodeSelector: Record<string, string>;
  volumes: { type: string; size: string; id: string; mountPath: string }[];
  /** a serverless worker (default: a GPU instance): named, labelled and probed as one */
  worker?: WorkerSpecPart | undefined;
}

/** What a serverless worker adds to a workload (src/domain/serverless/README.md). */
export interface WorkerSpecPart {
  endpointId: string;
  /** the readiness probe, from the endpoint's `healthy` (seconds, as interface.md defines them) */
  health: { path: string; initialDelay: number; period: number; timeout: number; successThreshold: number; failureThreshold: number };
}

export const OBSERVED_PHASES = ['absent', 'creating', 'pulling', 'starting', 'running', 'stopping', 'stopped', 'deleting', 'failed'] as const;
export type ObservedPhase = (typeof OBSERVED_PHASES)[number];

/**
 * Why a workload failed, in words the instance's statusError can carry. `disk_limit_exceeded`:
 * it wrote more than its spec gives it (root filesystem or a volume) and was stopped for it.
 */
export const FAILURE_REASONS = ['image_pull_failed', 'insufficient_resource', 'crashed', 'disk_limit_exceeded', 'unknown'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

export interface Observed {
  phase: ObservedPhase;
  /** when the current run began (running only): tells a restarted workload from the old one */
  startedAtMs?: number;
  reason?: FailureReason;
  message?: string;
  /** when the run ended (failed or stopped by itself): GPU time is billed up to here */
  endedAtMs?: number;
  /** the provider announced it will take the capacity back (spot) */
  reclaimNotice?: boolean;
}

/** A published port of a running workload: where it answers from where Gantry runs (`host:port`). */
export interface WorkloadPort {
  port: number;
  type: string;
  endpoint: string;
}

/** A line the workload wrote (its stdout and stderr), with when. */
export interface WorkloadLogLine {
  atMs: number;
  line: string;
}

/**
 * One GPU of the server a driver runs workloads on, read now (docker: nvidia-smi's
 * `--query-gpu`, or the operator's list). A value the driver cannot give is undefined.
 */
export interface GpuDevice {
  /** the host's index (nvidia-smi's) */
  index: number;
  uuid: string;
  /** the model as nvidia-smi prints it (`NVIDIA H200`); '' when unknown */
  name: string;
  memoryTotalMiB?: number | undefined;
  memoryUsedMiB?: number | undefined;
  utilizationGpuPct?: number | undefined;
}

/**
 * The GPUs a driver knows it has (docker: one server), the inventory of one cluster
 * (`ComputeDriver.inventory`; domain/compute/gpu-inventory.ts keeps that cluster's products'
 * inventory rows equal to it).
 */
export interface DriverInventory {
  /** the cluster these GPUs are (docker: GANTRY_DOCKER_CLUSTER) */
  readonly clusterId: string;
  /** the GPUs now; [] for a server without GPUs; rejects when they cannot be read (the inventory is then left as it was) */
  gpus(): Promise<GpuDevice[]>;
}

/** One GPU of a workload in a usage sample. */
export interface WorkloadGpuUsage {
  uuid: string;
  /** the host's index */
  index: number;
  utilizationPct?: number | undefined;
  memoryUsedMiB?: number | undefined;
  memoryTotalMiB?: number | undefined;
}

/** What a running workload uses now, in percent of what it was given (`ComputeDriver.usage`). */
export interface WorkloadUsage {
  id: string;
  /** CPU time used, in percent of the CPUs it was given (100 = all of them busy) */
  cpuPct?: number | undefined;
  /** memory in use (without the page cache it could drop), in percent of its memory limit */
  memoryPct?: number | undefined;
  /** its root disk's use, in percent of its size; undefined where the driver cannot tell */
  rootDiskPct?: number | undefined;
  /** the GPUs it holds, in their host index order, each from the same reading */
  gpus: WorkloadGpuUsage[];
}

export interface ComputeDriver {
  create(spec: WorkloadSpec): Promise<void>;
  describe(id: string): Promise<Observed>;
  start(spec: WorkloadSpec): Promise<void>;
  stop(id: string): Promise<void>;
  delete(id: string): Promise<void>;
  /**
   * Where the workload's first port answers, as `host:port`, while it runs (the serverless
   * router sends requests there); undefined when it does not run or has no port.
   */
  address(id: string): Promise<string | undefined>;
  /**
   * Every port of the workload, in the spec's order, each with where it answers (`host:port`),
   * while it runs; [] when it does not run, is stopping or being deleted, or does not exist.
   */
  ports(id: string): Promise<WorkloadPort[]>;
  /**
   * The ids of every workload the driver manages (found by its labels, running or not, a
   * creation in flight included): the reconciler removes those with no row (orphans).
   */
  list(): Promise<string[]>;
  /**
   * The workload's output written after `afterMs`, oldest first, at most `limit` lines (the
   * oldest of what is there: the caller goes on from the last line's time); [] when it has
   * none or does not exist. Lines written in the same millisecond as `afterMs` are not
   * returned again.
   */
  logs(id: string, afterMs: number, limit: number): Promise<WorkloadLogLine[]>;
  /**
   * Release what the driver holds in this process (servers, connections, timers) as the
   * process or a test ends; the workloads stay the cluster's. Idempotent.
   */
  close(): Promise<void>;
  /**
   * Optional: an interactive shell inside the running workload (the web terminal), sized
   * `size` (drivers/README.md says which drivers have it). Refuses with TerminalUnavailable
   * when the workload does not run.
   */
  terminal?(id: string, size: TerminalSize): Promise<TerminalSession>;
  /**
   * Optional: a process in the running workload (the SSH endpoint's shells, commands and SFTP:
   * gateway/ssh), with its stdin, stdout and stderr (one TTY stream when `tty` is given) and
   * its exit status. Refuses with TerminalUnavailable when the workload does not run.
   */
  exec?(id: string, options: ExecOptions): Promise<ExecSession>;
  /**
   * Optional: a TCP connection to `port` of the running workload, on its own network (the SSH
   * endpoint's `ssh -L`), whether or not the port is published. Refuses with
   * TerminalUnavailable when the workload does not run.
   */
  connect?(id: string, port: number): Promise<Duplex>;
  /**
   * Optional: a regular file of the workload as a stream of its bytes (SFTP downloads: docker
   * reads it through the engine's archive API, as `docker cp` does, no tool in the image);
   * undefined when `path` is no regular file there (the caller reads it another way).
   */
  readFile?(id: string, path: string): Promise<Readable | undefined>;
  /**
   * Optional: the GPUs of the one cluster this driver serves, read from the machine (docker).
   * When present and it reads GPUs, that cluster's inventory rows follow them
   * (domain/compute/gpu-inventory.ts) and the operator's inventory PUT is refused for it; when
   * it reads none or cannot read them, and for drivers without it (sim, kubernetes), the
   * inventory is the operator's.
   */
  readonly inventory?: DriverInventory | undefined;
  /**
   * Optional: a usage sample of every workload running now (instances and workers alike; the
   * caller keeps those it wants), one GPU reading shared by all. Drivers without it have no
   * metrics (the metrics operation answers empty series).
   */
  usage?(): Promise<WorkloadUsage[]>;
  /**
   * Optional: measure what each running workload uses of the limits its spec gives it that
   * the engine does not hold by itself (docker: the root filesystem's `rootfsGb` and each
   * volume's `size`, where no storage quota does), and stop those over: describe() then says
   * `failed`, `disk_limit_exceeded`, with the breach's message. Returns those it stopped now.
   * Called periodically (the `compute.sample` job); drivers whose platform enforces the limits
   * (kubernetes' kubelet evicts a pod over its ephemeral storage) or that run nothing (sim)
   * have none.
   */
  enforceLimits?(): Promise<LimitBreach[]>;
}

/** A running workload a driver stopped because it used more than its spec gives it (`enforceLimits`). */
export interface LimitBreach {
  id: string;
  /** which limit and by how much, in words (the statusError's message) */
  message: string;
}

/** What a driver's factory is given besides its settings. */
export interface DriverDeps {
  clock: Clock;
}

/** One compute driver as the registry (index.ts) lists it. */
export interface DriverRegistration<K extends string = string, S = unknown> {
  /** its name in GANTRY_COMPUTE_DRIVER */
  readonly kind: K;
  /** reads its settings (read only when it is the driver chosen) through the configuration's readers */
  settings(read: SettingReaders): S;
  /** builds it; a client that is heavy to load is imported here, so it loads only when chosen */
  create(settings: S, deps: DriverDeps): Promise<ComputeDriver>;
}

/** A registration, with its kind kept as the literal it is (the registry derives the allowed kinds from them). */
export function defineDriver<const K extends string, S>(r: DriverRegistration<K, S>): DriverRegistration<K, S> {
  return r;
}

/** A terminal's size, in characters. */
export interface TerminalSize {
  cols: number;
  rows: number;
}

/** A shell in a workload, on a terminal: bytes both ways, as a TTY has them. */
export interface TerminalSession {
  /** keystrokes in, the terminal's output out (stdout and stderr as one TTY stream); ends when the shell ends */
  readonly stream: Duplex;
  /** the terminal's new size (what the shell's `stty size` says) */
  resize(size: TerminalSize): Promise<void>;
  /** ends the shell, every process started from it, and the stream. Idempotent. */
  close(): Promise<void>;
}

/** A process to run in a workload (`ComputeDriver.exec`). */
export interface ExecOptions {
  /** argv; default: the image's shell, interactive (bash if it has one, else sh) */
  command?: string[] | undefined;
  /** a TTY of this size (stdout and stderr are then one stream); none: three pipes */
  tty?: TerminalSize | undefined;
  /** `NAME=value` entries added to the process's environment */
  env?: string[] | undefined;
}

/** A process in a workload (`ComputeDriver.exec`). */
export interface ExecSession {
  /** the process's stdin; end() closes it (the process reads EOF) */
  readonly stdin: Writable;
  /** its stdout (with a TTY: everything the TTY writes) */
  readonly stdout: Readable;
  /** its stderr (with a TTY: ends at once, empty) */
  readonly stderr: Readable;
  /** its exit status once it has ended (stdout ended); null when the engine cannot say */
  exited(): Promise<number | null>;
  /** the TTY's new size (none without a TTY) */
  resize(size: TerminalSize): Promise<void>;
  /** ends the process, every process started from it, and the streams. Idempotent. */
  close(): Promise<void>;
}

/** The workload cannot have a terminal now (it does not run). */
export class TerminalUnavailable extends Error {}
