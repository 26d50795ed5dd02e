// The labels the docker driver puts on the containers, networks and volumes it makes: how it
// finds its own objects and reads back what it recorded (drivers/README.md, docker).
/**
 * Labels on every container, network and volume the driver makes. Every one the driver reads
 * back from a container is set by it on every container (empty when it has no value), and
 * any other `io.gantry.*` label an image carries is set empty: an image's labels never
 * stand for Gantry's (containerLabels).
 */
export const LABEL = {
  managed: 'io.gantry.managed',
  id: 'io.gantry.id',
  role: 'io.gantry.role',
  endpoint: 'io.gantry.endpoint',
  cluster: 'io.gantry.cluster',
  /** the team it runs for */
  team: 'io.gantry.team',
  gpus: 'io.gantry.gpus',
  /**
   * the GPUs (UUIDs, comma-separated) the container was given: with the engine's record of its
   * devices (gpus.ts confirmedGpus), what allocation rebuilds who holds what from
   */
  gpuUuids: 'io.gantry.gpu-uuids',
  /** the spec's ports in its order (the engine's port map has none): address() uses the first */
  ports: 'io.gantry.ports',
  /** each of those ports' type (http, tcp), in the same order: ports() gives them back */
  portTypes: 'io.gantry.port-types',
  /** the root filesystem's size in GiB (the spec's rootfsGb): the limit enforceLimits holds it to */
  rootfsGb: 'io.gantry.rootfs-gb',
  /** each volume's size in GiB by its mount path (JSON): the limits enforceLimits holds them to */
  volumeGb: 'io.gantry.volume-gb',
  /** on a volume: the network storage id it holds, or the container a marker is about */
  storage: 'io.gantry.storage',
  marker: 'io.gantry.marker',
  /** on a limit marker: the breach, in words (describe() reports it) */
  reason: 'io.gantry.reason',
} as const;

/** The prefix of every label of Gantry's. */
export const LABEL_PREFIX = 'io.gantry.';
