// What the docker driver sends to the engine and how it reads the answers, as pure functions
// (no I/O; tested in container.test.ts): names, labels, the create body, the command line
// split like a shell would, image references, the observed phase of an inspected container,
// and the log stream (8-byte frames, timestamps).
import type { FailureReason, Observed, WorkloadSpec } from '../types.ts';
import { deviceRequests, gpuEnvs } from './gpus.ts';
import { hostSecurity, libpodSecurity, rootfsQuota } from './hardening.ts';
import { LABEL, LABEL_PREFIX } from './labels.ts';
import { DEFAULT_PIDS_LIMIT, type GpuMode } from './settings.ts';

export { LABEL, LABEL_PREFIX } from './labels.ts';

const ENGINE_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * The engine's name for a Gantry id: the id itself when the engine accepts it (`ins_…`,
 * `wk-…` do), else `gantry-<hex of the id>` (a name must follow from the id alone: describe,
 * stop and delete get nothing else).
 */
export function engineName(id: string): string {
  return ENGINE_NAME.test(id) && id.length <= 200 ? id : `gantry-${Buffer.from(id).toString('hex').slice(0, 200)}`;
}

/** The prefix of the named volumes holding network storage. */
export const STORAGE_VOLUME_PREFIX = 'gantry-ns-';

/** The named volume holding network storage `storageId` (shared by every container that mounts it). */
export function storageVolumeName(storageId: string): string {
  return `${STORAGE_VOLUME_PREFIX}${engineName(storageId)}`;
}

export const MARKER_KINDS = ['stop', 'delete', 'limit'] as const;
export type MarkerKind = (typeof MARKER_KINDS)[number];

/**
 * The marker volumes (drivers/README.md: why markers): a stop Gantry asked for, a delete in
 * progress, a run stopped for going over a disk limit.
 */
export function markerName(kind: MarkerKind, name: string): string {
  return `gantry-${kind}-${name}`;
}

/**
 * The network a team's containers join: `<prefix>-<team id>` (GANTRY_DOCKER_NETWORK is the
 * prefix); a team id an engine would not take as a name is hex-encoded.
 */
export function teamNetworkName(prefix: string, teamId: string): string {
  const team = teamId && ENGINE_NAME.test(teamId) && teamId.length <= 120 ? teamId : `x${Buffer.from(teamId).toString('hex').slice(0, 120)}`;
  return `${prefix}-${team}`;
}

/**
 * Gantry's labels for the container: every one the driver reads back, an empty value where
 * it has none (a CPU workload's GPUs, an instance's endpoint), and `imageLabelKeys` (the
 * `io.gantry.*` labels of the image, which the container would inherit) set empty unless
 * Gantry sets them: a forged image label never reaches Gantry's records.
 */
export function containerLabels(spec: WorkloadSpec, gpuUuids: readonly string[] = [], imageLabelKeys: readonly string[] = []): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const key of imageLabelKeys) if (key.startsWith(LABEL_PREFIX)) labels[key] = '';
  return {
    ...labels,
    [LABEL.managed]: 'true',
    [LABEL.id]: spec.id,
    [LABEL.role]: spec.worker ? 'worker' : 'instance',
    [LABEL.endpoint]: spec.worker?.endpointId ?? '',
    [LABEL.cluster]: spec.clusterId,
    [LABEL.team]: spec.teamId,
    [LABEL.gpus]: String(spec.gpuNum),
    [LABEL.gpuUuids]: gpuUuids.join(','),
    [LABEL.ports]: spec.ports.map((p) => p.port).join(','),
    [LABEL.portTypes]: spec.ports.map((p) => p.type).join(','),
    [LABEL.rootfsGb]: String(spec.rootfsGb),
    [LABEL.volumeGb]: JSON.stringify(Object.fromEntries(spec.volumes.map((v) => [v.mountPath, Number(v.size) || 0]))),
  };
}

// ---------------------------------------------------------------------------------------
// Command lines

/** Characters that mean shell syntax when unquoted: such a line cannot be an argv. */
const SHELL_SYNTAX = new Set([';', '&', '|', '<', '>', '(', ')', '$', '`', '*', '?', '[', '\n']);

/**
 * A command line split into words the way a POSIX shell would (blanks separate, '…' is
 * literal, "…" and \ escape), or undefined when it holds shell syntax (operators, expansions,
 * globs, a comment, an unclosed quote) that only a shell can run.
 */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === ' ' || ch === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === '"') {
      let w = word ?? '';
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        const c = line[j]!;
        if (c === '$' || c === '`') return undefined; // an expansion inside double quotes
        if (c === '\\' && j + 1 < line.length && '"\\$`\n'.includes(line[j + 1]!)) {
          j++;
          if (line[j] !== '\n') w += line[j];
        } else w += c;
      }
      if (j >= line.length) return undefined;
      word = w;
      i = j;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) return undefined;
      i++;
      if (line[i] !== '\n') word = (word ?? '') + line[i];
    } else if (SHELL_SYNTAX.has(ch) || ((ch === '#' || ch === '~') && word === undefined)) {
      return undefined;
    } else {
      word = (word ?? '') + ch;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * The container's Entrypoint and Cmd from the spec's entrypoint and start command (each a
 * command line; empty keeps the image's). A line is split like a shell would; one that holds
 * shell syntax (`a && b`, `> log`, `$VAR`) runs through `/bin/sh -c` (an entrypoint as
 * `sh -c '<line> "$@"' sh`, so the command still reaches it as arguments).
 */
export function commandOf(spec: Pick<WorkloadSpec, 'entrypoint' | 'command'>): { Entrypoint?: string[]; Cmd?: string[] } {
  const out: { Entrypoint?: string[]; Cmd?: string[] } = {};
  const entry = spec.entrypoint?.trim();
  if (entry) out.Entrypoint = shellWords(entry) ?? ['/bin/sh', '-c', `${entry} "$@"`, 'sh'];
  const cmd = spec.command?.trim();
  if (cmd) out.Cmd = shellWords(cmd) ?? ['/bin/sh', '-c', cmd];
  else if (entry) out.Cmd = []; // an entrypoint given alone does not take the image's Cmd as its arguments
  return out;
}

// ---------------------------------------------------------------------------------------
// Images

/** `fromImage` and `tag` of a pull (an empty tag would pull every tag of the repository). */
export function imagePullQuery(ref: string): { fromImage: string; tag: string } {
  const at = ref.indexOf('@');
  if (at >= 0) return { fromImage: ref.slice(0, at), tag: ref.slice(at + 1) };
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  if (colon > slash) return { fromImage: ref.slice(0, colon), tag: ref.slice(colon + 1) };
  return { fromImage: ref, tag: 'latest' };
}

/** The X-Registry-Auth header: base64url (with padding, as Go decodes it) of the credentials. */
export function registryAuthHeader(auth: NonNullable<WorkloadSpec['imagePullAuth']>): string {
  const json = JSON.stringify({ username: auth.username, password: auth.password, serveraddress: auth.server });
  return Buffer.from(json).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

// ---------------------------------------------------------------------------------------
// The create body

export interface ContainerSettings {
  /** the prefix of the teams' networks (teamNetworkName): a container joins its team's */
  network: string;
  /** the host address ports are published on */
  publishHost: string;
  /** how the GPUs are passed (default nvidia) */
  gpuMode?: GpuMode | undefined;
  /** the most processes one container may have (default DEFAULT_PIDS_LIMIT) */
  pidsLimit?: number | undefined;
}

/** What the create body takes besides the spec and the settings. */
export interface CreateExtras {
  /** the `io.gantry.*` labels the image carries (set empty on the container) */
  imageLabelKeys?: readonly string[];
  /** ask the storage driver's quota for the root filesystem (engines on xfs with pquota) */
  rootfsQuota?: boolean;
}

/**
 * POST /containers/create's body for a workload, pinned to the GPUs it was given
 * (`gpuUuids`), on its team's network, confined (hardening.ts). An instance's ports are
 * published on the publish host; a worker's never are: the router reaches it on its
 * network (portsOf).
 */
export function createBody(spec: WorkloadSpec, s: ContainerSettings, gpuUuids: readonly string[] = [], extras: CreateExtras = {}): Record<string, unknown> {
  const exposed: Record<string, object> = {};
  const bindings: Record<string, { HostIp: string; HostPort: string }[]> = {};
  for (const p of spec.ports) {
    exposed[`${p.port}/tcp`] = {};
    // a free host port, chosen at each start
    if (!spec.worker) bindings[`${p.port}/tcp`] = [{ HostIp: s.publishHost, HostPort: '' }];
  }
  const mounts = spec.volumes.map((v) => (v.type === 'network'
    ? { Type: 'volume', Source: storageVolumeName(v.id), Target: v.mountPath }
    // any other storage lives and dies with the container (an anonymous volume, removed with it)
    : { Type: 'volume', Target: v.mountPath }));
  const memory = Math.round(spec.memoryGb * 1024 ** 3);
  return {
    Image: spec.image,
    ...commandOf(spec),
    Env: gpuEnvs(spec.envs, gpuUuids).map((e) => `${e.key}=${e.value}`),
    Labels: containerLabels(spec, gpuUuids, extras.imageLabelKeys),
    ExposedPorts: exposed,
    Tty: false,
    OpenStdin: false,
    HostConfig: {
      NetworkMode: teamNetworkName(s.network, spec.teamId),
      PortBindings: bindings,
      ...hostSecurity(s.pidsLimit ?? DEFAULT_PIDS_LIMIT),
      ...(extras.rootfsQuota ? { StorageOpt: rootfsQuota(spec.rootfsGb) } : {}),
      ...(spec.cpuNum > 0 ? { NanoCpus: Math.round(spec.cpuNum * 1e9) } : {}),
      // no swap beyond the limit: a workload over its memory is killed, as on a pod
      ...(memory > 0 ? { Memory: memory, MemorySwap: memory } : {}),
      Mounts: mounts,
      ...(gpuUuids.length ? { DeviceRequests: deviceRequests(gpuUuids, s.gpuMode ?? 'nvidia') } : {}),
      // a crash ends the run (failed, crashed): Gantry decides what comes next, never the engine
      RestartPolicy: { Name: 'no' },
    },
  };
}

/**
 * The same container as libpod's SpecGenerator (`POST /v4.0.0/libpod/containers/create`), for
 * a Podman engine given GPUs: Podman 4.3's Docker-compatible API honours neither
 * DeviceRequests nor CDI names in HostConfig.Devices, its libpod API takes CDI names as
 * devices (issue 31). Built from the Docker body, so both say the same.
 */
export function libpodCreateBody(name: string, body: Record<string, unknown>, devices: readonly string[]): Record<string, unknown> {
  const b = body as {
    Image: string; Entrypoint?: string[]; Cmd?: string[]; Env: string[]; Labels: Record<string, string>;
    HostConfig: {
      NetworkMode: string; PortBindings: Record<string, { HostIp: string; HostPort: string }[]>; NanoCpus?: number;
      Memory?: number; MemorySwap?: number; Mounts: { Type: string; Source?: string; Target: string }[];
      CapDrop?: string[]; CapAdd?: string[]; SecurityOpt?: string[]; PidsLimit?: number; StorageOpt?: Record<string, string>;
    };
  };
  const h = b.HostConfig;
  const env: Record<string, string> = {};
  for (const e of b.Env) {
    const at = e.indexOf('=');
    env[e.slice(0, at)] = e.slice(at + 1);
  }
  const period = 100_000;
  const limits: Record<string, unknown> = {};
  if (h.NanoCpus) limits.cpu = { quota: Math.round((h.NanoCpus / 1e9) * period), period };
  if (h.Memory) limits.memory = { limit: h.Memory, swap: h.MemorySwap ?? h.Memory };
  if (h.PidsLimit) limits.pids = { limit: h.PidsLimit };
  return {
    name,
    image: b.Image,
    ...(b.Entrypoint ? { entrypoint: b.Entrypoint } : {}),
    ...(b.Cmd ? { command: b.Cmd } : {}),
    env,
    labels: b.Labels,
    terminal: false,
    stdin: false,
    netns: { nsmode: 'bridge' },
    Networks: { [h.NetworkMode]: {} },
    portmappings: Object.entries(h.PortBindings).map(([port, [bind]]) => ({
      container_port: Number(port.split('/')[0]), host_ip: bind?.HostIp ?? '', host_port: 0, protocol: 'tcp',
    })),
    ...(Object.keys(limits).length ? { resource_limits: limits } : {}),
    // a named volume, or an anonymous one (no name) that goes with the container
    volumes: h.Mounts.map((m) => ({ Name: m.Source ?? '', Dest: m.Target, Options: [] })),
    devices: devices.map((path) => ({ path })),
    restart_policy: 'no',
    ...libpodSecurity(h),
    ...(h.StorageOpt ? { storage_opts: h.StorageOpt } : {}),
  };
}

// ---------------------------------------------------------------------------------------
// Reading a container back

/** The part of GET /containers/{name}/json the driver reads (Docker and Podman alike). */
export interface ContainerInspect {
  Id: string;
  State: {
    Status: string;
    Running?: boolean;
    OOMKilled?: boolean;
    Dead?: boolean;
    ExitCode?: number;
    Error?: string;
    StartedAt?: string;
    FinishedAt?: string;
  };
  Config?: { Labels?: Record<string, string> | null; Tty?: boolean; Env?: string[] | null } | null;
  HostConfig?: { Memory?: number; NetworkMode?: string; DeviceRequests?: { Driver?: string; DeviceIDs?: string[] | null }[] | null } | null;
  NetworkSettings?: {
    Ports?: Record<string, { HostIp?: string; HostPort?: string }[] | null> | null;
    Networks?: Record<string, { IPAddress?: string }> | null;
  } | null;
}

/** An engine time (RFC 3339, nanoseconds) in ms; undefined for Go's zero time. */
export function engineTimeMs(t: string | undefined): number | undefined {
  if (!t || t.startsWith('0001-01-01')) return undefined;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(t);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}.${(m[2] ?? '').padEnd(3, '0').slice(0, 3)}${m[3]}`);
  return Number.isNaN(ms) ? undefined : ms;
}

export interface ObserveContext {
  /** Gantry asked for the stop (a marker says so) */
  stopAsked: boolean;
  /** Podman reports OOMKilled=false for an OOM kill: exit 137 under a memory limit is one */
  engine: 'docker' | 'podman';
  /** the last start Gantry asked of the engine failed with this */
  startError?: string | undefined;
  /** the run was stopped for going over a disk limit (a limit marker says so, in these words) */
  limitBreach?: string | undefined;
}

function fail(reason: FailureReason, message: string, endedAtMs?: number): Observed {
  return endedAtMs === undefined ? { phase: 'failed', reason, message } : { phase: 'failed', reason, message, endedAtMs };
}

function gib(bytes: number): string {
  const g = bytes / 1024 ** 3;
  return g >= 1 ? `${Math.round(g * 100) / 100} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

/** An inspected container → the contract's observed phase (drivers/README.md, docker). */
export function observedFromInspect(c: ContainerInspect, ctx: ObserveContext): Observed {
  const st = c.State;
  const startedAtMs = engineTimeMs(st.StartedAt);
  const endedAtMs = engineTimeMs(st.FinishedAt);
  switch (st.Status) {
    case 'running':
    case 'paused':
      if (ctx.stopAsked || ctx.limitBreach) return { phase: 'stopping' };
      return startedAtMs === undefined ? { phase: 'running' } : { phase: 'running', startedAtMs };
    case 'restarting':
      return { phase: 'starting' };
    case 'removing':
      return { phase: 'deleting' };
    case 'stopping':
      return { phase: 'stopping' };
    case 'created':
    case 'configured':
    case 'initialized': {
      if (ctx.stopAsked) return { phase: 'stopped' };
      const error = st.Error || ctx.startError;
      return error ? fail('crashed', `the container could not start: ${error}`) : { phase: 'starting' };
    }
    default: {
      // exited, stopped (Podman), dead
      if (ctx.stopAsked) return endedAtMs === undefined ? { phase: 'stopped' } : { phase: 'stopped', endedAtMs };
      if (ctx.limitBreach) return fail('disk_limit_exceeded', ctx.limitBreach, endedAtMs);
      if (st.Error || ctx.startError) return fail('crashed', `the container could not start: ${st.Error || ctx.startError}`, endedAtMs);
      const code = st.ExitCode ?? 0;
      const limit = c.HostConfig?.Memory ?? 0;
      if (code !== 0 && st.OOMKilled) return fail('crashed', `killed out of memory (exit code ${code}, limit ${gib(limit)})`, endedAtMs);
      if (code === 137 && limit > 0 && ctx.engine === 'podman') {
        // Podman's Docker-compatible API always says OOMKilled=false
        return fail('crashed', `killed out of memory (exit code 137 under a ${gib(limit)} limit)`, endedAtMs);
      }
      if (st.Status === 'dead' || st.Dead) return fail('unknown', 'the engine reports the container dead', endedAtMs);
      if (code !== 0) return fail('crashed', `exited with code ${code}`, endedAtMs);
      // it ended by itself, successfully: a stopped workload (the reconciler says so)
      return endedAtMs === undefined ? { phase: 'stopped' } : { phase: 'stopped', endedAtMs };
    }
  }
}

/** `host:port` of the spec's first port while the container runs (the ports label keeps the spec's order). */
export function addressOf(c: ContainerInspect, addressHost: string): string | undefined {
  return portsOf(c, addressHost)[0]?.endpoint;
}

/** The container's address on its (team's) network, undefined before it has one. */
export function networkAddressOf(c: ContainerInspect): string | undefined {
  const nets = c.NetworkSettings?.Networks ?? {};
  const own = c.HostConfig?.NetworkMode ? nets[c.HostConfig.NetworkMode]?.IPAddress : undefined;
  return own || Object.values(nets).find((n) => n.IPAddress)?.IPAddress || undefined;
}

/**
 * Every port of the spec (the labels keep its order and types) with where it answers, while
 * the container runs: an instance's at the host address the engine published it on (a port
 * not published yet is left out), a worker's at the container's address on its team's
 * network (workers are never published: only the host, where the router runs, and the
 * team's own containers reach them).
 */
export function portsOf(c: ContainerInspect, addressHost: string): { port: number; type: string; endpoint: string }[] {
  if (c.State.Status !== 'running') return [];
  const labels = c.Config?.Labels ?? {};
  const ports = (labels[LABEL.ports] ?? '').split(',').filter(Boolean);
  const types = (labels[LABEL.portTypes] ?? '').split(',');
  const out: { port: number; type: string; endpoint: string }[] = [];
  if (labels[LABEL.role] === 'worker') {
    const ip = networkAddressOf(c);
    if (!ip) return [];
    return ports.map((port, i) => ({ port: Number(port), type: types[i] || 'tcp', endpoint: `${ip.includes(':') ? `[${ip}]` : ip}:${port}` }));
  }
  for (const [i, port] of ports.entries()) {
    const binding = c.NetworkSettings?.Ports?.[`${port}/tcp`]?.find((b) => b.HostPort);
    if (!binding?.HostPort) continue;
    const ip = binding.HostIp && binding.HostIp !== '0.0.0.0' && binding.HostIp !== '::' ? binding.HostIp : addressHost;
    out.push({ port: Number(port), type: types[i] || 'tcp', endpoint: `${ip.includes(':') ? `[${ip}]` : ip}:${binding.HostPort}` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Logs

/**
 * Splits the log stream of a container without a TTY into its frames (a byte for the stream,
 * three zero bytes, the payload's length as a big-endian uint32, the payload); a stream that
 * does not start like a frame (a TTY container's) is taken as it is.
 */
export class LogDemuxer {
  private buf: Buffer = Buffer.alloc(0);
  private raw: boolean | undefined;

  /** The payload text that is complete so far. */
  push(chunk: Buffer): string {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    if (this.raw === undefined && this.buf.length >= 4) {
      this.raw = !(this.buf[0]! <= 2 && this.buf[1] === 0 && this.buf[2] === 0 && this.buf[3] === 0);
    }
    if (this.raw === undefined) return '';
    if (this.raw) {
      const out = this.buf.toString('utf8');
      this.buf = Buffer.alloc(0);
      return out;
    }
    const parts: Buffer[] = [];
    let off = 0;
    while (this.buf.length - off >= 8) {
      const size = this.buf.readUInt32BE(off + 4);
      if (this.buf.length - off - 8 < size) break;
      parts.push(this.buf.subarray(off + 8, off + 8 + size));
      off += 8 + size;
    }
    this.buf = this.buf.subarray(off);
    return Buffer.concat(parts).toString('utf8');
  }
}

const STAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d) ?(.*)$/s;

/**
 * Turns `<RFC 3339 time> <line>` lines (logs with timestamps=1) into timed lines whose times
 * strictly increase within a second, so that a reader going on "after the last line's time"
 * never loses the lines that shared its millisecond: a line gets its own millisecond, or the
 * one after the line before's when that is later (a burst; Podman's REST times are whole
 * seconds, so its k-th line of a second gets that second + k ms), never past the second's
 * last (beyond 1000 lines in a second, the rest share it). A line's time depends only on the
 * lines before it in the same second, and every read starts at a whole second (`since`), so
 * the same line gets the same time on every read.
 */
export class LogLineTimer {
  private second = Number.NaN;
  private lastMs = 0;

  line(row: string): { atMs: number; line: string } | undefined {
    const text = row.endsWith('\r') ? row.slice(0, -1) : row;
    const m = STAMPED.exec(text);
    if (!m) return text ? { atMs: this.lastMs, line: text } : undefined; // a line without its own time: the one before's
    const sec = Date.parse(`${m[1]}${m[3]}`);
    if (Number.isNaN(sec)) return undefined;
    const own = sec + Number((m[2] ?? '').padEnd(3, '0').slice(0, 3));
    const atMs = sec === this.second ? Math.min(Math.max(own, this.lastMs + 1), sec + 999) : own;
    this.second = sec;
    this.lastMs = atMs;
    return { atMs, line: m[4] ?? '' };
  }
}
