// The docker driver's readings for the domain (drivers/README.md, docker, "GPUs for the
// catalogue and metrics"): the server's GPUs as the inventory of its cluster, and a usage
// sample of every running container — its GPUs from one nvidia-smi reading shared by all
// containers, its CPU and memory from the engine's one-shot stats
// (`GET /containers/{id}/stats?stream=false`, which Docker and Podman both answer: Docker after
// ~1 s with `precpu_stats` filled, Podman at once with them empty; fixtures/engine-stats/).
// The arithmetic is pure (usage.test.ts, on the engines' real answers and nvidia-smi's).
import type { GpuDevice, WorkloadGpuUsage, WorkloadUsage } from '../types.ts';
import { LABEL } from './container.ts';
import { type EngineClient, isNotFound } from './engine.ts';
import { confirmedGpus, type GpuEvidence, type GpuReading, heldGpus, readGpus } from './gpus.ts';
import type { DockerSettings } from './settings.ts';

/** What the stats answer carries that is read here (both engines; Podman gives no `stats` under memory_stats). */
export interface EngineStats {
  read?: string;
  preread?: string;
  cpu_stats?: CpuStats;
  precpu_stats?: CpuStats;
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number> };
}

interface CpuStats {
  cpu_usage?: { total_usage?: number };
  online_cpus?: number;
}

/** A container's CPU time used (ns) at a moment (ms): two of them give its CPU use between. */
export interface CpuMark {
  totalNs: number;
  atMs: number;
}

/** An engine's RFC 3339 time with nanoseconds → ms; undefined for Go's zero time (`0001-01-01…`) or none. */
function timeMs(t: string | undefined): number | undefined {
  if (!t || t.startsWith('0001-')) return undefined;
  const ms = Date.parse(t.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(ms) ? ms : undefined;
}

/** The reading's CPU mark (cpu_stats at `read`). */
export function cpuMark(s: EngineStats): CpuMark | undefined {
  const atMs = timeMs(s.read);
  const totalNs = s.cpu_stats?.cpu_usage?.total_usage;
  return atMs === undefined || !totalNs ? undefined : { totalNs, atMs };
}

/** The mark before it that Docker adds (precpu_stats at `preread`); Podman leaves it empty. */
export function precpuMark(s: EngineStats): CpuMark | undefined {
  const atMs = timeMs(s.preread);
  const totalNs = s.precpu_stats?.cpu_usage?.total_usage;
  return atMs === undefined || !totalNs ? undefined : { totalNs, atMs };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * CPU use between two marks in percent of the `cpus` the container was given (its NanoCpus;
 * the machine's when it has no limit), 0-100 (a measure a little over the limit, from timing,
 * reads 100); undefined without an earlier mark or any time between.
 */
export function cpuPercent(now: CpuMark | undefined, before: CpuMark | undefined, cpus: number | undefined): number | undefined {
  if (!now || !before || !cpus || cpus <= 0) return undefined;
  const wallNs = (now.atMs - before.atMs) * 1e6;
  const usedNs = now.totalNs - before.totalNs;
  if (wallNs <= 0 || usedNs < 0) return undefined;
  return round2(Math.min(100, (usedNs / (wallNs * cpus)) * 100));
}

/**
 * Memory in use in percent of the limit, as `docker stats` counts it: the usage less the page
 * cache the kernel could drop (`inactive_file` on cgroup v2, `total_inactive_file` on v1;
 * Podman's usage has none to take off).
 */
export function memoryPercent(s: EngineStats): number | undefined {
  const m = s.memory_stats;
  if (!m?.usage || !m.limit) return undefined;
  const cache = m.stats?.total_inactive_file ?? m.stats?.inactive_file ?? 0;
  return round2(Math.max(0, ((m.usage - (cache < m.usage ? cache : 0)) / m.limit) * 100));
}

/** A container's GPUs (the UUIDs it holds: gpus.ts confirmedGpus) from one nvidia-smi reading, in host index order. */
export function gpusOf(uuids: readonly string[], readings: ReadonlyMap<string, GpuReading>): WorkloadGpuUsage[] {
  return uuids.map((uuid) => {
    const g = readings.get(uuid);
    return { uuid, index: g?.index ?? -1, utilizationPct: g?.utilizationGpuPct, memoryUsedMiB: g?.memoryUsedMiB, memoryTotalMiB: g?.memoryTotalMiB };
  }).sort((a, b) => a.index - b.index);
}

/**
 * The server's GPUs for the catalogue: GANTRY_DOCKER_GPUS (models from its `=<model>`, else
 * from nvidia-smi when it answers) or nvidia-smi's; no nvidia-smi is no GPUs; one that fails
 * rejects (the domain then leaves the inventory as it was).
 */
export async function readInventory(s: DockerSettings): Promise<GpuDevice[]> {
  const src = { nvidiaSmi: s.nvidiaSmi ?? 'nvidia-smi' };
  if (s.gpus) {
    const unnamed = s.gpus.some((u) => !s.gpuNames?.[u]);
    const read = unnamed ? await readGpus(src).catch(() => [] as GpuReading[]) : [];
    const byUuid = new Map(read.map((g) => [g.uuid, g]));
    return s.gpus.map((uuid, index) => {
      const g = byUuid.get(uuid);
      return { index, uuid, name: s.gpuNames?.[uuid] ?? g?.name ?? '', memoryTotalMiB: g?.memoryTotalMiB, memoryUsedMiB: g?.memoryUsedMiB, utilizationGpuPct: g?.utilizationGpuPct };
    });
  }
  let read: GpuReading[];
  try {
    read = await readGpus(src);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []; // a CPU-only server
    throw err;
  }
  return read.map((g) => ({ index: g.index, uuid: g.uuid, name: g.name, memoryTotalMiB: g.memoryTotalMiB, memoryUsedMiB: g.memoryUsedMiB, utilizationGpuPct: g.utilizationGpuPct }));
}

/** What inspect gives that a sample reads: the CPUs it was given, the GPUs it holds. */
type Inspected = GpuEvidence & { HostConfig?: { NanoCpus?: number } | null };

interface ListedContainer {
  Id: string;
  Labels?: Record<string, string> | null;
}

/**
 * Usage samples of the running containers of Gantry. Keeps each container's last CPU mark, so
 * a sample's CPU is its use since the sample before (the sampling interval, 15 s), or over
 * Docker's own 1 s window for a container's first sample (none on Podman's first).
 */
export class UsageSampler {
  private marks = new Map<string, CpuMark>();
  private readonly engine: EngineClient;
  private readonly s: DockerSettings;

  constructor(engine: EngineClient, settings: DockerSettings) {
    this.engine = engine;
    this.s = settings;
  }

  async sample(): Promise<WorkloadUsage[]> {
    const rows = (await this.engine.json<ListedContainer[]>('GET', '/containers/json', {
      query: { filters: JSON.stringify({ label: [`${LABEL.managed}=true`], status: ['running'] }) },
    })) ?? [];
    const running = rows.filter((r) => r.Labels?.[LABEL.id]);
    // one nvidia-smi reading for every container, and none when no container holds a GPU
    const holds = running.some((r) => heldGpus(r.Labels?.[LABEL.gpuUuids]).length);
    const readings = holds ? await readGpus({ nvidiaSmi: this.s.nvidiaSmi ?? 'nvidia-smi' }).catch(() => [] as GpuReading[]) : [];
    const byUuid = new Map(readings.map((g) => [g.uuid, g]));
    const marks = new Map<string, CpuMark>();
    const out = await Promise.all(running.map((r) => this.one(r, byUuid, marks)));
    this.marks = marks; // containers no longer running are forgotten
    return out.filter((u): u is WorkloadUsage => u !== undefined);
  }

  private async one(r: ListedContainer, readings: ReadonlyMap<string, GpuReading>, marks: Map<string, CpuMark>): Promise<WorkloadUsage | undefined> {
    let stats: EngineStats | undefined;
    let inspect: Inspected | undefined;
    try {
      [stats, inspect] = await Promise.all([
        this.engine.json<EngineStats>('GET', `/containers/${r.Id}/stats`, { query: { stream: 'false' } }),
        this.engine.json<Inspected>('GET', `/containers/${r.Id}/json`),
      ]);
    } catch (err) {
      if (isNotFound(err)) return undefined; // gone since the listing
      throw err;
    }
    if (!stats) return undefined;
    const mark = cpuMark(stats);
    if (mark) marks.set(r.Id, mark);
    const nano = inspect?.HostConfig?.NanoCpus;
    const cpus = nano ? nano / 1e9 : stats.cpu_stats?.online_cpus;
    // since the sample before; the engine's own window when there is none (or the engine answered that same reading again)
    const prev = this.marks.get(r.Id);
    const before = prev && mark && prev.atMs < mark.atMs ? prev : precpuMark(stats);
    return {
      id: r.Labels![LABEL.id]!,
      cpuPct: cpuPercent(mark, before, cpus),
      memoryPct: memoryPercent(stats),
      // the GPUs the engine's record confirms, never a label alone (an image's)
      gpus: gpusOf(inspect ? confirmedGpus(inspect) : [], readings),
    };
  }
}
