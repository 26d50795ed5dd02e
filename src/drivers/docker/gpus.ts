// The docker driver's GPUs (drivers/README.md, docker): the server's inventory from
// `nvidia-smi --query-gpu=… --format=csv` (or a list the operator configures), the compute
// processes on them, and how a container is pinned to the GPUs it holds (the create body's
// part and its envs). Parsing and pinning are pure (gpus.test.ts, on real output from an H200
// server); the reader runs nvidia-smi with a deadline.
import { execFile } from 'node:child_process';
import { LABEL } from './labels.ts';
import type { GpuMode } from './settings.ts';

/** What `--query-gpu` asks, in this order (the order of `--format=csv,noheader` output). */
export const GPU_QUERY_FIELDS = [
  'index', 'uuid', 'name', 'memory.total', 'memory.used', 'memory.free', 'utilization.gpu', 'utilization.memory',
  'temperature.gpu', 'power.draw', 'power.limit', 'pci.bus_id', 'driver_version', 'mig.mode.current', 'compute_cap',
  'clocks.sm', 'clocks.max.sm',
] as const;

export const COMPUTE_APP_FIELDS = ['pid', 'process_name', 'used_memory', 'gpu_uuid'] as const;

/** Header names nvidia-smi prints for a field asked under another name (580: `clocks.sm` → `clocks.current.sm`). */
const ALIASES: Record<string, string> = {
  'clocks.current.sm': 'clocks.sm',
  'clocks.current.max.sm': 'clocks.max.sm',
  used_gpu_memory: 'used_memory',
};

/** One GPU as nvidia-smi reads it; a value it cannot give (`[N/A]`, `[Not Supported]`) is undefined. */
export interface GpuReading {
  index: number;
  uuid: string;
  name: string;
  memoryTotalMiB?: number | undefined;
  memoryUsedMiB?: number | undefined;
  memoryFreeMiB?: number | undefined;
  utilizationGpuPct?: number | undefined;
  utilizationMemoryPct?: number | undefined;
  temperatureC?: number | undefined;
  powerDrawW?: number | undefined;
  powerLimitW?: number | undefined;
  pciBusId?: string | undefined;
  driverVersion?: string | undefined;
  /** `Enabled` / `Disabled`; undefined where the GPU has no MIG */
  migMode?: string | undefined;
  computeCap?: string | undefined;
  clockSmMHz?: number | undefined;
  clockMaxSmMHz?: number | undefined;
}

/** A process using a GPU (`--query-compute-apps`). */
export interface GpuProcess {
  pid: number;
  processName: string;
  usedMemoryMiB?: number | undefined;
  gpuUuid: string;
}

/** `[N/A]`, `N/A`, `[Not Supported]`, `[Unknown Error]`, `[Insufficient Permissions]`…: no value. */
function text(v: string | undefined): string | undefined {
  const t = v?.trim();
  if (!t || /^\[.*\]$/.test(t) || t === 'N/A') return undefined;
  return t;
}

/** A number with or without its unit (`143771 MiB`, `100 %`, `690.47 W`, `35`). */
function num(v: string | undefined): number | undefined {
  const t = text(v);
  if (t === undefined) return undefined;
  const m = /^(-?\d+(?:\.\d+)?)(?:\s*[A-Za-z%]+)?$/.exec(t);
  return m ? Number(m[1]) : undefined;
}

/** A header cell → the field asked (`memory.total [MiB]` → `memory.total`). */
function fieldOf(header: string): string {
  const f = header.replace(/\s*\[[^\]]*\]\s*$/, '').trim();
  return ALIASES[f] ?? f;
}

/**
 * Rows of nvidia-smi CSV as field → cell, the fields from the header when there is one
 * (`--format=csv`) or `fields` in order (`csv,noheader`). nvidia-smi does not quote: a row
 * with more cells than fields has a comma inside the `spread` field (a process name), which
 * takes the extra cells.
 */
function rows(out: string, fields: readonly string[], spread?: string): Record<string, string>[] {
  const lines = out.split(/\r?\n/).filter((l) => l.trim());
  if (!lines.length) return [];
  let names: string[] = [...fields];
  const first = lines[0]!.split(',').map((c) => c.trim());
  if (first[0] === fields[0]) { // a header: a value never equals its field's name
    names = first.map(fieldOf);
    lines.shift();
  }
  const spreadAt = spread ? names.indexOf(spread) : -1;
  return lines.map((line) => {
    let cells = line.split(',');
    if (cells.length > names.length && spreadAt >= 0) {
      const extra = cells.length - names.length;
      cells = [...cells.slice(0, spreadAt), cells.slice(spreadAt, spreadAt + extra + 1).join(','), ...cells.slice(spreadAt + extra + 1)];
    }
    const row: Record<string, string> = {};
    for (const [i, n] of names.entries()) row[n] = (cells[i] ?? '').trim();
    return row;
  });
}

/** `nvidia-smi --query-gpu=<GPU_QUERY_FIELDS> --format=csv` (units or not, header or not) → the GPUs. */
export function parseGpuQuery(out: string): GpuReading[] {
  const gpus: GpuReading[] = [];
  for (const r of rows(out, GPU_QUERY_FIELDS)) {
    const uuid = text(r.uuid);
    const index = num(r.index);
    if (!uuid || index === undefined) continue; // not a GPU row
    gpus.push({
      index, uuid, name: text(r.name) ?? '',
      memoryTotalMiB: num(r['memory.total']), memoryUsedMiB: num(r['memory.used']), memoryFreeMiB: num(r['memory.free']),
      utilizationGpuPct: num(r['utilization.gpu']), utilizationMemoryPct: num(r['utilization.memory']),
      temperatureC: num(r['temperature.gpu']), powerDrawW: num(r['power.draw']), powerLimitW: num(r['power.limit']),
      pciBusId: text(r['pci.bus_id']), driverVersion: text(r.driver_version), migMode: text(r['mig.mode.current']),
      computeCap: text(r.compute_cap), clockSmMHz: num(r['clocks.sm']), clockMaxSmMHz: num(r['clocks.max.sm']),
    });
  }
  return gpus;
}

/** `nvidia-smi --query-compute-apps=pid,process_name,used_memory,gpu_uuid --format=csv` → the processes. */
export function parseComputeApps(out: string): GpuProcess[] {
  const apps: GpuProcess[] = [];
  for (const r of rows(out, COMPUTE_APP_FIELDS, 'process_name')) {
    const pid = num(r.pid);
    const gpuUuid = text(r.gpu_uuid);
    if (pid === undefined || !gpuUuid) continue; // "No running processes found" and the like
    apps.push({ pid, processName: r.process_name ?? '', usedMemoryMiB: num(r.used_memory), gpuUuid });
  }
  return apps;
}

// ---------------------------------------------------------------------------------------
// The inventory

export interface GpuSource {
  /** GANTRY_DOCKER_GPUS: the operator's list of UUIDs; when set, nvidia-smi is not run */
  configured?: readonly string[] | undefined;
  /** GANTRY_DOCKER_NVIDIA_SMI: the program run for the inventory (looked up on PATH) */
  nvidiaSmi: string;
  timeoutMs?: number;
}

/** What the server has, or why it has none. */
export interface GpuInventory {
  gpus: { uuid: string; index: number; name: string }[];
  /** nvidia-smi could not be read (absent: a CPU-only server, no error) */
  error?: string;
}

function run(program: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) {
        const e = err as NodeJS.ErrnoException & { killed?: boolean };
        const why = e.killed ? `no answer in ${timeoutMs} ms` : (stderr.trim() || stdout.trim() || e.message);
        reject(Object.assign(new Error(`${program}: ${why}`), { code: e.code }));
      } else resolve(stdout);
    });
  });
}

/** `nvidia-smi --query-gpu=…` now (readings for metrics too); rejects when it cannot be run or fails. */
export async function readGpus(s: GpuSource): Promise<GpuReading[]> {
  return parseGpuQuery(await run(s.nvidiaSmi, [`--query-gpu=${GPU_QUERY_FIELDS.join(',')}`, '--format=csv'], s.timeoutMs ?? 5_000));
}

/** `nvidia-smi --query-compute-apps=…` now. */
export async function readComputeApps(s: GpuSource): Promise<GpuProcess[]> {
  return parseComputeApps(await run(s.nvidiaSmi, [`--query-compute-apps=${COMPUTE_APP_FIELDS.join(',')}`, '--format=csv'], s.timeoutMs ?? 5_000));
}

/**
 * The GPUs workloads may be given: the configured list (in its order), else nvidia-smi's; no
 * nvidia-smi on this host is no GPUs (CPU-only workloads still run), one that fails is no
 * GPUs with the error said.
 */
export async function gpuInventory(s: GpuSource): Promise<GpuInventory> {
  if (s.configured) return { gpus: s.configured.map((uuid, index) => ({ uuid, index, name: '' })) };
  try {
    return { gpus: (await readGpus(s)).map((g) => ({ uuid: g.uuid, index: g.index, name: g.name })) };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { gpus: [] };
    return { gpus: [], error: (err as Error).message };
  }
}

// ---------------------------------------------------------------------------------------
// Pinning a container to its GPUs

/** The CDI name of a GPU (nvidia-ctk's spec names each GPU by its UUID, its index and `all`). */
export function cdiName(uuid: string): string {
  return `nvidia.com/gpu=${uuid}`;
}

/**
 * The Docker API's part of the create body for `uuids` (HostConfig.DeviceRequests): the
 * NVIDIA runtime hook (`nvidia`, as `docker run --gpus`) or CDI names (`cdi`, Docker ≥ 25
 * with CDI enabled, as `docker run --device nvidia.com/gpu=<uuid>`). None without GPUs.
 */
export function deviceRequests(uuids: readonly string[], mode: GpuMode): Record<string, unknown>[] {
  if (!uuids.length) return [];
  return mode === 'nvidia'
    ? [{ Driver: 'nvidia', DeviceIDs: [...uuids], Capabilities: [['gpu']] }]
    : [{ Driver: 'cdi', DeviceIDs: uuids.map(cdiName) }];
}

/**
 * The envs that go with the GPUs, replacing the spec's own NVIDIA_VISIBLE_DEVICES (under an
 * NVIDIA runtime set as the engine's default, that env alone exposes GPUs: a workload could
 * name any GPU, and CUDA images set `all`). With GPUs: NVIDIA_VISIBLE_DEVICES the UUIDs, and
 * CUDA_VISIBLE_DEVICES `0,…,N-1` unless the spec sets it (the container sees only its N GPUs,
 * numbered from 0: a host index would name none, nvidia-smi/pinning.txt, and frameworks that
 * parse it as integers refuse UUIDs). Without: NVIDIA_VISIBLE_DEVICES=void (the runtime hook
 * adds nothing) and no CUDA_VISIBLE_DEVICES (an empty one hides every GPU, but there are none).
 */
export function gpuEnvs(envs: readonly { key: string; value: string }[], uuids: readonly string[]): { key: string; value: string }[] {
  const out = envs.filter((e) => e.key !== 'NVIDIA_VISIBLE_DEVICES');
  if (!uuids.length) return [...out, { key: 'NVIDIA_VISIBLE_DEVICES', value: 'void' }];
  out.push({ key: 'NVIDIA_VISIBLE_DEVICES', value: uuids.join(',') });
  if (!envs.some((e) => e.key === 'CUDA_VISIBLE_DEVICES')) out.push({ key: 'CUDA_VISIBLE_DEVICES', value: uuids.map((_, i) => i).join(',') });
  return out;
}

/** The UUIDs a container's labels say it holds. */
export function heldGpus(label: string | undefined): string[] {
  return (label ?? '').split(',').map((u) => u.trim()).filter(Boolean);
}

/** What of an inspected container says which GPUs it was given (Docker's and Podman's inspect alike). */
export interface GpuEvidence {
  Config?: { Labels?: Record<string, string> | null; Env?: string[] | null } | null;
  HostConfig?: { DeviceRequests?: { DeviceIDs?: string[] | null }[] | null } | null;
}

/**
 * The GPUs a container holds: those its `io.gantry.gpu-uuids` label names that the engine's
 * record of its configuration names too, so a label alone (an image's, on a container an
 * older Gantry made) holds none. That record is the NVIDIA_VISIBLE_DEVICES of its Env, which
 * Gantry sets on every container over the image's (`void` without GPUs: gpuEnvs), and, where
 * the engine keeps them (Docker), its DeviceRequests' IDs (a UUID, or its CDI name). Podman
 * reports a CDI device only as the host nodes it became once started, not by name, so the
 * Env is its record.
 */
export function confirmedGpus(c: GpuEvidence): string[] {
  const labelled = heldGpus(c.Config?.Labels?.[LABEL.gpuUuids]);
  if (!labelled.length) return [];
  const env = (c.Config?.Env ?? []).find((e) => e.startsWith('NVIDIA_VISIBLE_DEVICES='));
  const given = new Set(heldGpus(env?.slice('NVIDIA_VISIBLE_DEVICES='.length)));
  const requests = c.HostConfig?.DeviceRequests ?? [];
  if (requests.length) {
    const requested = new Set(requests.flatMap((r) => r.DeviceIDs ?? []).map((d) => d.replace(/^nvidia\.com\/gpu=/, '')));
    for (const u of given) if (!requested.has(u)) given.delete(u);
  }
  return labelled.filter((u) => given.has(u));
}


/**
 * N of the free GPUs, lowest index first; undefined when fewer are free. `held` are the
 * UUIDs other workloads hold.
 */
export function pickGpus(inventory: GpuInventory['gpus'], held: ReadonlySet<string>, n: number): string[] | undefined {
  const free = inventory.filter((g) => !held.has(g.uuid)).sort((a, b) => a.index - b.index);
  return free.length >= n ? free.slice(0, n).map((g) => g.uuid) : undefined;
}
