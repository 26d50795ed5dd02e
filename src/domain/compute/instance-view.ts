// The instance object of interface.md: numbers the interface carries as strings stay strings.
import type * as q from '../../store/compute.ts';

export function instanceView(r: q.InstanceRow, clusterName: string | undefined) {
  return {
    id: r.id, name: r.name, clusterId: r.clusterId, clusterName: clusterName ?? '', status: r.status,
    imageUrl: r.imageUrl, imageAuthId: r.imageAuthId, command: r.command, entrypoint: r.entrypoint,
    cpuNum: String(r.cpuNum), memory: String(r.memoryGb), gpuNum: String(r.gpuNum),
    portMappings: r.ports.map((p) => ({ port: p.port, type: p.type })),
    productId: r.productId, productName: r.productName, rootfsSize: r.rootfsSize, volumeMounts: r.volumeMounts,
    statusError: { state: r.statusErrorState, message: r.statusErrorMessage },
    envs: r.envs, kind: r.kind, billingMode: r.billingMode,
    endTime: String(r.billingMode === 'monthly' ? r.endTimeS : -1),
    spotStatus: r.spotStatus, spotReclaimTime: String(r.spotReclaimTimeS),
    templateId: r.templateId ?? '', createdAt: String(Math.floor(r.createdAt.getTime() / 1000)),
  };
}

/**
 * get adds how to connect; the sim and kubernetes drivers expose ports, not SSH, so SSH is off.
 * `logUrl`: the instance's log (GET /gpu/instance/log), '' while it has none.
 */
export function instanceDetailView(r: q.InstanceRow, clusterName: string | undefined, logUrl = '') {
  const running = r.status === 'running';
  return {
    ...instanceView(r, clusterName),
    network: { ports: r.ports.map((p) => ({ port: p.port, type: p.type, endpoint: `${r.id}.${r.clusterId}.gantry.local:${p.port}` })) },
    connectComponentSSH: { sshCommand: '', password: '', isRunning: false },
    connectComponentJupyter: { isRunning: running && r.ports.some((p) => p.port === 8888), url: running && r.ports.some((p) => p.port === 8888) ? `http://${r.id}.${r.clusterId}.gantry.local:8888` : '' },
    connectComponentWebTerminal: { isRunning: false, url: '' },
    connectComponentLog: { isRunning: running, url: logUrl },
    freeStorageSize: 0,
    keepDataDay: 0,
  };
}
