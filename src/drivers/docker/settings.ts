// The docker driver's settings, read through the configuration's readers (lib/settings.ts).
// No client here: the registration imports this module, the engine client loads only when
// the driver is built.
import { isIP } from 'node:net';
import type { SettingReaders } from '../../lib/settings.ts';

export interface DockerSettings {
  /** GANTRY_DOCKER_HOST: the engine's API, unix:///path or tcp://host:port */
  host: string;
  /** GANTRY_DOCKER_NETWORK: the bridge network containers join (made when missing) */
  network: string;
  /** GANTRY_DOCKER_PUBLISH_HOST: the host address ports are published on */
  publishHost: string;
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
  return { host, network, publishHost };
}
