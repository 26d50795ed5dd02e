// The docker driver's settings, read through the configuration's readers (lib/settings.ts).
// No client here: the registration imports this module, the engine client loads only when
// the driver is built.
import { isIP } from 'node:net';
import type { SettingReaders } from '../../lib/settings.ts';

/** How GPUs reach a container of a Docker engine (GANTRY_DOCKER_GPU_MODE; gpus.ts). */
export const GPU_MODES = ['nvidia', 'cdi'] as const;
export type GpuMode = (typeof GPU_MODES)[number];

/** A GPU UUID as `nvidia-smi -L` prints it: GPU-<hex and dashes>, or a MIG device's MIG-… */
export const GPU_UUID = /^(?:GPU|MIG)-[0-9a-fA-F-]{8,}$/;

export interface DockerSettings {
  /** GANTRY_DOCKER_HOST: the engine's API, unix:///path or tcp://host:port */
  host: string;
  /** GANTRY_DOCKER_NETWORK: the bridge network containers join (made when missing) */
  network: string;
  /** GANTRY_DOCKER_PUBLISH_HOST: the host address ports are published on */
  publishHost: string;
  /** GANTRY_DOCKER_GPU_MODE: how a Docker engine is given a container's GPUs (Podman: CDI names, always) */
  gpuMode?: GpuMode | undefined;
  /** GANTRY_DOCKER_GPUS: the GPUs (UUIDs) workloads may be given, instead of nvidia-smi's inventory */
  gpus?: readonly string[] | undefined;
  /** GANTRY_DOCKER_NVIDIA_SMI: the program that lists the GPUs when GANTRY_DOCKER_GPUS is unset */
  nvidiaSmi?: string | undefined;
}

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

const NETWORK_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/;

export function readDockerSettings(read: SettingReaders): DockerSettings {
  const host = read.text('GANTRY_DOCKER_HOST', 'unix:///var/run/docker.sock');
  if (!parseEngineHost(host)) read.problem(`GANTRY_DOCKER_HOST must be unix:///path/to/socket or tcp://host:port, got "${host}"`);
  const network = read.text('GANTRY_DOCKER_NETWORK', 'gantry');
  if (!NETWORK_NAME.test(network)) read.problem(`GANTRY_DOCKER_NETWORK must be a network name (letters, digits, _ . -), got "${network}"`);
  const publishHost = read.text('GANTRY_DOCKER_PUBLISH_HOST', '127.0.0.1');
  if (!isIP(publishHost)) read.problem(`GANTRY_DOCKER_PUBLISH_HOST must be an IP address of this host (0.0.0.0: every interface), got "${publishHost}"`);
  const gpuMode = read.oneOf('GANTRY_DOCKER_GPU_MODE', GPU_MODES, 'nvidia');
  const gpuList = read.optionalText('GANTRY_DOCKER_GPUS');
  const gpus = gpuList === undefined ? undefined : parseGpuList(gpuList);
  if (gpuList !== undefined && !gpus) {
    read.problem(`GANTRY_DOCKER_GPUS must be "none" or a comma list of GPU UUIDs as \`nvidia-smi -L\` prints them (GPU-…), got "${gpuList}"`);
  }
  const nvidiaSmi = read.text('GANTRY_DOCKER_NVIDIA_SMI', 'nvidia-smi');
  return { host, network, publishHost, gpuMode, gpus, nvidiaSmi };
}

/** GANTRY_DOCKER_GPUS → the UUIDs (`none`: no GPUs, nvidia-smi not run); undefined when it is not such a list. */
export function parseGpuList(value: string): string[] | undefined {
  if (value.trim() === 'none') return [];
  const uuids = value.split(',').map((u) => u.trim()).filter(Boolean);
  if (!uuids.length || !uuids.every((u) => GPU_UUID.test(u)) || new Set(uuids).size !== uuids.length) return undefined;
  return uuids;
}
