// The disk limits the docker driver holds a running container to when no storage quota does
// (drivers/README.md, docker, "Limits"): its root filesystem's writes (the engine's SizeRw,
// the writable layer) within its rootfsGb, and each volume it mounts within that volume's
// size. One measure of every container and volume is the engine's `GET /system/df` (Docker
// and Podman both answer it, walking the layers and volumes); which container is over what
// is decided here, without I/O (limits.test.ts).
import { STORAGE_VOLUME_PREFIX } from './container.ts';
import { LABEL } from './labels.ts';

const GIB = 1024 ** 3;

/** What `GET /containers/json` lists of a running container that is read here. */
export interface ListedForLimits {
  Id: string;
  Names?: string[];
  Labels?: Record<string, string> | null;
  Mounts?: { Type?: string; Name?: string; Destination?: string }[] | null;
}

/** What `GET /system/df` answers that is read here. */
export interface DiskUsageAnswer {
  Containers?: { Id: string; SizeRw?: number }[] | null;
  Volumes?: { Name: string; UsageData?: { Size?: number } | null }[] | null;
}

export interface DiskBreach {
  /** the Gantry id (io.gantry.id) */
  id: string;
  /** the engine's name */
  name: string;
  message: string;
}

/** Bytes in the unit a person reads: MiB below a GiB. */
export function bytesText(bytes: number): string {
  return bytes >= GIB ? `${Math.round((bytes / GIB) * 100) / 100} GiB` : `${Math.round((bytes / 1024 ** 2) * 10) / 10} MiB`;
}

/** The sizes by mount path a container was made with (LABEL.volumeGb), in bytes. */
function volumeLimits(labels: Record<string, string>): Map<string, number> {
  try {
    const sizes = JSON.parse(labels[LABEL.volumeGb] ?? '{}') as Record<string, unknown>;
    return new Map(Object.entries(sizes).filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0).map(([path, gb]) => [path, gb * GIB]));
  } catch {
    return new Map();
  }
}

/** The first limit the container is over, in words; undefined within all of them. */
function breachOf(c: ListedForLimits, rw: ReadonlyMap<string, number>, volumes: ReadonlyMap<string, number>): string | undefined {
  const labels = c.Labels ?? {};
  const rootfs = Number(labels[LABEL.rootfsGb]) * GIB;
  const written = rw.get(c.Id);
  if (rootfs > 0 && written !== undefined && written > rootfs) {
    return `its root filesystem holds ${bytesText(written)} written, over its rootfsSize of ${bytesText(rootfs)}`;
  }
  const limits = volumeLimits(labels);
  for (const m of c.Mounts ?? []) {
    const limit = m.Destination ? limits.get(m.Destination) : undefined;
    const used = m.Name ? volumes.get(m.Name) : undefined;
    if (limit !== undefined && used !== undefined && used > limit) {
      const storage = m.Name?.startsWith(STORAGE_VOLUME_PREFIX) ? ` (network storage ${m.Name.slice(STORAGE_VOLUME_PREFIX.length)})` : '';
      return `the volume at ${m.Destination}${storage} holds ${bytesText(used)}, over its size of ${bytesText(limit)}`;
    }
  }
  return undefined;
}

/** The running containers of Gantry's over a disk limit, with which (one engine-wide reading). */
export function diskBreaches(containers: readonly ListedForLimits[], df: DiskUsageAnswer): DiskBreach[] {
  const rw = new Map((df.Containers ?? []).filter((c) => typeof c.SizeRw === 'number').map((c) => [c.Id, c.SizeRw!]));
  const volumes = new Map((df.Volumes ?? []).filter((v) => (v.UsageData?.Size ?? -1) >= 0).map((v) => [v.Name, v.UsageData!.Size!]));
  const out: DiskBreach[] = [];
  for (const c of containers) {
    const id = c.Labels?.[LABEL.id];
    const message = id ? breachOf(c, rw, volumes) : undefined;
    if (id && message) out.push({ id, name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''), message });
  }
  return out;
}
