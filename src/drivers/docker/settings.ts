// The docker driver's settings, read through the configuration's readers (lib/settings.ts).
// No client here: the registration imports this module, the engine client loads only when
// the driver is built.
import { isIP } from 'node:net';
import type { SettingReaders } from '../../lib/settings.ts';
import { DEFAULT_LOCAL_IMAGES, parseLocalImages, parsePrivateRegistries } from './image-rules.ts';

/** How GPUs reach a container of a Docker engine (GANTRY_DOCKER_GPU_MODE; gpus.ts). */
export const GPU_MODES = ['nvidia', 'cdi'] as const;
export type GpuMode = (typeof GPU_MODES)[number];

/** A GPU UUID as `nvidia-smi -L` prints it: GPU-<hex and dashes>, or a MIG device's MIG-… */
export const GPU_UUID = /^(?:GPU|MIG)-[0-9a-fA-F-]{8,}$/;

export interface DockerSettings {
  /** GANTRY_DOCKER_HOST: the engine's API, unix:///path or tcp://host:port */
  host: string;
  /**
   * GANTRY_DOCKER_NETWORK: the prefix of the teams' bridge networks: a team's containers join
   * `<prefix>-<team id>` (container.ts teamNetworkName; made on demand, removed when unused)
   */
  network: string;
  /** GANTRY_DOCKER_PUBLISH_HOST: the host address ports are published on */
  publishHost: string;
  /** GANTRY_DOCKER_GPU_MODE: how a Docker engine is given a container's GPUs (Podman: CDI names, always) */
  gpuMode?: GpuMode | undefined;
  /** GANTRY_DOCKER_GPUS: the GPUs (UUIDs) workloads may be given, instead of nvidia-smi's inventory */
  gpus?: readonly string[] | undefined;
  /** GANTRY_DOCKER_NVIDIA_SMI: the program that lists the GPUs when GANTRY_DOCKER_GPUS is unset */
  nvidiaSmi?: string | undefined;
  /**
   * GANTRY_DOCKER_CLUSTER: the cluster this server is (unset: DEFAULT_DOCKER_CLUSTER, the
   * cluster the first start seeds): its products' inventory follows the server's GPUs
   * (domain/compute/gpu-inventory.ts)
   */
  cluster?: string | undefined;
  /** the models GANTRY_DOCKER_GPUS gives its GPUs (`<uuid>=<model>`), by UUID */
  gpuNames?: Readonly<Record<string, string>> | undefined;
  /**
   * GANTRY_DOCKER_LOCAL_IMAGES: the operator's images, run as the engine has them for every
   * team and never pulled (image-rules.ts; unset: DEFAULT_LOCAL_IMAGES, `localhost/*`)
   */
  localImages?: readonly string[] | undefined;
  /** GANTRY_DOCKER_PRIVATE_REGISTRIES: registries on loopback, private or link-local addresses the engine may pull from (unset: none) */
  privateRegistries?: readonly string[] | undefined;
  /** GANTRY_DOCKER_PIDS_LIMIT: the most processes (and threads) one container may have (unset: DEFAULT_PIDS_LIMIT) */
  pidsLimit?: number | undefined;
}

/**
 * Processes and threads one container may hold at once. Podman's own default is 2048; a GPU
 * workload's data loaders and thread pools count too (PyTorch: a few hundred threads), so 4096:
 * eight such containers still leave a host with the kernel's smallest pid_max (32768) room.
 */
export const DEFAULT_PIDS_LIMIT = 4096;

/** The seeded cluster (domain/compute/seed.ts SEED_CLUSTER_ID; drivers do not import the domain): one server, one cluster. */
export const DEFAULT_DOCKER_CLUSTER = 'cls_local';

export interface EngineTarget {
  /** the dispatcher's origin: http://host:port, or a placeholder on a unix socket */
  origin: string;
  socketPath?: string | undefined;
  /** the host of a tcp:// engine (where its published ports are), undefined on a socket */
  host?: string | undefined;
}

/** GANTRY_DOCKER_HOST → where to connect; undefined when it is no engine address. */
export function parseEngineHost(value: string): EngineTarget | undefined {
  if (value.startsWith('unix://')) {
    const socketPath = value.slice('unix://'.length);
    return socketPath.startsWith('/') ? { origin: 'http://docker', socketPath } : undefined;
  }
  const m = /^(?:tcp|http):\/\/(\[[0-9a-fA-F:.]+\]|[^/:[\]\s]+)(?::(\d{1,5}))?\/?$/.exec(value);
  if (!m) return undefined;
  const port = m[2] ?? '2375';
  if (Number(port) < 1 || Number(port) > 65535) return undefined;
  return { origin: `http://${m[1]}:${port}`, host: m[1]!.replace(/^\[|\]$/g, '') };
}

/**
 * The host put into a workload's address: the publish host, unless ports are published on
 * every interface (0.0.0.0, ::), then the engine's host (tcp://) or 127.0.0.1 (a local socket).
 */
export function addressHostOf(s: DockerSettings): string {
  if (s.publishHost !== '0.0.0.0' && s.publishHost !== '::') return s.publishHost;
  return parseEngineHost(s.host)?.host ?? '127.0.0.1';
}

/** a team's network is `<prefix>-<team id>`: the prefix leaves room for the id in a name */
const NETWORK_PREFIX = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/;

export function readDockerSettings(read: SettingReaders): DockerSettings {
  const host = read.text('GANTRY_DOCKER_HOST', 'unix:///var/run/docker.sock');
  if (!parseEngineHost(host)) read.problem(`GANTRY_DOCKER_HOST must be unix:///path/to/socket or tcp://host:port, got "${host}"`);
  const network = read.text('GANTRY_DOCKER_NETWORK', 'gantry');
  if (!NETWORK_PREFIX.test(network)) read.problem(`GANTRY_DOCKER_NETWORK must be a network name prefix (1-64 letters, digits, _ . -), got "${network}"`);
  const publishHost = read.text('GANTRY_DOCKER_PUBLISH_HOST', '127.0.0.1');
  if (!isIP(publishHost)) read.problem(`GANTRY_DOCKER_PUBLISH_HOST must be an IP address of this host (0.0.0.0: every interface), got "${publishHost}"`);
  const gpuMode = read.oneOf('GANTRY_DOCKER_GPU_MODE', GPU_MODES, 'nvidia');
  const gpuList = read.optionalText('GANTRY_DOCKER_GPUS');
  const entries = gpuList === undefined ? undefined : parseGpuEntries(gpuList);
  if (gpuList !== undefined && !entries) {
    read.problem(`GANTRY_DOCKER_GPUS must be "none" or a comma list of GPU UUIDs as \`nvidia-smi -L\` prints them (GPU-…), each optionally =<model> (GPU-…=NVIDIA H200), got "${gpuList}"`);
  }
  const gpus = entries?.map((e) => e.uuid);
  const named = entries?.filter((e) => e.name) ?? [];
  const nvidiaSmi = read.text('GANTRY_DOCKER_NVIDIA_SMI', 'nvidia-smi');
  // unset: the driver's DEFAULT_DOCKER_CLUSTER
  const cluster = read.optionalText('GANTRY_DOCKER_CLUSTER');
  if (cluster !== undefined && !CLUSTER_ID.test(cluster)) read.problem(`GANTRY_DOCKER_CLUSTER must be a cluster id (1-64 letters, digits, ., _ or -), got "${cluster}"`);
  const pidsLimit = read.int('GANTRY_DOCKER_PIDS_LIMIT', DEFAULT_PIDS_LIMIT, 16, 4_194_304);
  return {
    host, network, publishHost, gpuMode, gpus, nvidiaSmi, pidsLimit, ...readImageSettings(read),
    ...(cluster !== undefined ? { cluster } : {}),
    ...(named.length ? { gpuNames: Object.fromEntries(named.map((e) => [e.uuid, e.name])) } : {}),
  };
}

/** Where images may come from: the operator's local ones, and private registries allowed. */
function readImageSettings(read: SettingReaders): Pick<DockerSettings, 'localImages' | 'privateRegistries'> {
  const localList = read.optionalText('GANTRY_DOCKER_LOCAL_IMAGES');
  const localImages = localList === undefined ? DEFAULT_LOCAL_IMAGES : parseLocalImages(localList);
  if (!localImages) {
    read.problem(`GANTRY_DOCKER_LOCAL_IMAGES must be "none" or a comma list of image references (busybox:1.36) and name prefixes with their registry (localhost/*, registry.example.com/team/*), got "${localList}"`);
  }
  const privateList = read.optionalText('GANTRY_DOCKER_PRIVATE_REGISTRIES');
  const privateRegistries = privateList === undefined ? [] : parsePrivateRegistries(privateList);
  if (!privateRegistries) {
    read.problem(`GANTRY_DOCKER_PRIVATE_REGISTRIES must be "*" or a comma list of registry hosts, each optionally with its port (10.0.0.5:5000, registry.internal, [fd00::5]), got "${privateList}"`);
  }
  return { localImages: localImages ?? DEFAULT_LOCAL_IMAGES, privateRegistries: privateRegistries ?? [] };
}

/** A cluster id as the catalogue takes it (domain/compute/catalogue.ts upsertCluster). */
const CLUSTER_ID = /^[\w.-]{1,64}$/;

/**
 * GANTRY_DOCKER_GPUS → its GPUs, each `<uuid>` or `<uuid>=<model>` (the model as nvidia-smi
 * names it, for products to match when nvidia-smi cannot be read); `none`: no GPUs; undefined
 * when it is not such a list.
 */
export function parseGpuEntries(value: string): { uuid: string; name: string }[] | undefined {
  if (value.trim() === 'none') return [];
  const entries = value.split(',').map((u) => u.trim()).filter(Boolean).map((e) => {
    const at = e.indexOf('=');
    return at < 0 ? { uuid: e, name: '' } : { uuid: e.slice(0, at).trim(), name: e.slice(at + 1).trim() };
  });
  if (!entries.length || !entries.every((e) => GPU_UUID.test(e.uuid)) || new Set(entries.map((e) => e.uuid)).size !== entries.length) return undefined;
  return entries;
}

/** GANTRY_DOCKER_GPUS → the UUIDs (`none`: no GPUs, nvidia-smi not run); undefined when it is not such a list. */
export function parseGpuList(value: string): string[] | undefined {
  return parseGpuEntries(value)?.map((e) => e.uuid);
}
