// The instance object of interface.md: numbers the interface carries as strings stay strings.
import type * as q from '../../store/compute.ts';

/**
 * Where `port` answers: the driver's endpoint the reconciler recorded when it saw the instance
 * running (docker `host:port`, kubernetes the Service's address, the sim a name); '' while
 * the instance does not run or before it has been seen running. Read from the row only: a
 * request never waits for the engine.
 */
export function portEndpoint(r: Pick<q.InstanceRow, 'status' | 'portEndpoints'>, port: number): string {
  if (r.status !== 'running') return '';
  return r.portEndpoints.find((e) => e.port === port)?.endpoint ?? '';
}

export function instanceView(r: q.InstanceRow, clusterName: string | undefined) {
  return {
    id: r.id, name: r.name, clusterId: r.clusterId, clusterName: clusterName ?? '', status: r.status,
    imageUrl: r.imageUrl, imageAuthId: r.imageAuthId, command: r.command, entrypoint: r.entrypoint,
    cpuNum: String(r.cpuNum), memory: String(r.memoryGb), gpuNum: String(r.gpuNum),
    // `endpoint` is Gantry's addition to interface.md's port and type (docs/compat-decisions.md)
    portMappings: r.ports.map((p) => ({ port: p.port, type: p.type, endpoint: portEndpoint(r, p.port) })),
    productId: r.productId, productName: r.productName, rootfsSize: r.rootfsSize, volumeMounts: r.volumeMounts,
    statusError: { state: r.statusErrorState, message: r.statusErrorMessage },
    envs: r.envs, kind: r.kind, billingMode: r.billingMode,
    endTime: String(r.billingMode === 'monthly' ? r.endTimeS : -1),
    spotStatus: r.spotStatus, spotReclaimTime: String(r.spotReclaimTimeS),
    templateId: r.templateId ?? '', createdAt: String(Math.floor(r.createdAt.getTime() / 1000)),
  };
}

/** connectComponentJupyter: the template's Jupyter tool, its address through Gantry, whether it answers. */
export interface JupyterView {
  port: number;
  address: string;
  isRunning: boolean;
}

const NO_JUPYTER: JupyterView = { port: 0, address: '', isRunning: false };

/**
 * connectComponentSSH: the command that reaches the instance (gateway/ssh SshGateway.view()),
 * and the endpoint's host key: `hostKeyFingerprint` (SHA256:…) and `hostPublicKey` (a
 * known_hosts line's key), Gantry's additions (docs/compat-decisions.md); '' while SSH is off.
 */
export interface SshComponentView {
  sshCommand: string;
  password: string;
  isRunning: boolean;
  hostKeyFingerprint: string;
  hostPublicKey: string;
}

export const NO_SSH: SshComponentView = { sshCommand: '', password: '', isRunning: false, hostKeyFingerprint: '', hostPublicKey: '' };

/**
 * get adds how to connect; SSH where the endpoint listens and the driver has it (docker), for
 * callers who may operate the instance (`ssh`).
 * `logUrl`: the instance's log (GET /gpu/instance/log), '' while it has none. `terminalUrl`: its
 * web terminal (domain/terminals/terminals.ts terminalUrl), '' where there is none for the caller.
 */
export function instanceDetailView(r: q.InstanceRow, clusterName: string | undefined, logUrl = '', terminalUrl = '', jupyter: JupyterView = NO_JUPYTER, links: ReadonlyMap<number, string> = new Map(), ssh: SshComponentView = NO_SSH) {
  const running = r.status === 'running';
  return {
    ...instanceView(r, clusterName),
    // `address`: the port through Gantry's proxy with a one-time ticket for the caller (gateway/ports), '' where there is none
    network: { ports: r.ports.map((p) => ({ port: p.port, type: p.type, endpoint: portEndpoint(r, p.port), address: links.get(p.port) ?? '' })) },
    // gateway/ssh: `ssh -p <port> <instanceId>@<host>` for callers who may operate a running instance
    connectComponentSSH: { ...ssh, isRunning: running && ssh.isRunning, sshCommand: running ? ssh.sshCommand : '' },
    // the template's Jupyter tool through Gantry's ports proxy (gateway/ports/jupyter.ts)
    connectComponentJupyter: { port: jupyter.port, address: jupyter.address, isRunning: running && jupyter.isRunning },
    // the web terminal (domain/terminals): a ws(s):// URL with a ticket, for callers who may operate the instance
    connectComponentWebTerminal: { isRunning: running && terminalUrl !== '', url: running ? terminalUrl : '' },
    connectComponentLog: { isRunning: running, url: logUrl },
    freeStorageSize: 0,
    keepDataDay: 0,
  };
}
