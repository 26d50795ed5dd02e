// The serverless endpoint object of interface.md, with compat.md's numeric strings: in get
// and list `workerConfig.freeTimeout`, `workerConfig.maxConcurrent` and `policy.value` are
// strings; `ports[].port` is a string in list and an integer in get.
import type { EndpointRow, WorkerRow } from '../../store/serverless-endpoints.ts';
import type { ServerlessSettings } from './service.ts';

export const LOG_PATH = '/gpu-instance/openapi/v1/endpoint/log';
export const WORKER_LOG_PATH = '/gpu-instance/openapi/v1/endpoint/worker/log';

/** Where the endpoint answers: `{base}/serverless/{appName}`, or `{scheme}://{appName}.{domain}` (host-based). */
export function endpointUrl(s: ServerlessSettings, appName: string): string {
  if (s.domain) return `${new URL(s.publicBaseUrl).protocol}//${appName}.${s.domain}`;
  return `${s.publicBaseUrl}/serverless/${appName}`;
}

export const endpointLogUrl = (s: ServerlessSettings, id: string) => `${s.publicBaseUrl}${LOG_PATH}?id=${encodeURIComponent(id)}`;
export const workerLogUrl = (s: ServerlessSettings, id: string) => `${s.publicBaseUrl}${WORKER_LOG_PATH}?id=${encodeURIComponent(id)}`;

/**
 * A worker as the interface shows it. `metrics` is "": Gantry counts requests and workers per
 * endpoint (GET /endpoint/metrics), not per worker, and points to nothing that is not the
 * worker's own (docs/compat-decisions.md).
 */
export function workerView(s: ServerlessSettings, w: WorkerRow) {
  return {
    id: w.id, state: { state: w.state, error: w.stateError, message: w.stateMessage }, log: workerLogUrl(s, w.id), metrics: '', healthy: w.healthy,
  };
}

function baseView(s: ServerlessSettings, r: EndpointRow, workers: WorkerRow[]) {
  const { spec } = r;
  const network = spec.volumeMounts.some((m) => m.type === 'network');
  return {
    id: r.id, name: spec.name, appName: r.appName,
    state: { state: r.state, error: r.stateError, message: r.stateMessage },
    url: endpointUrl(s, r.appName),
    workerConfig: {
      minNum: spec.workerConfig.minNum, maxNum: spec.workerConfig.maxNum, freeTimeout: String(spec.workerConfig.freeTimeout),
      maxConcurrent: String(spec.workerConfig.maxConcurrent), gpuNum: spec.workerConfig.gpuNum, requestTimeout: spec.workerConfig.requestTimeout,
      cudaVersion: spec.workerConfig.cudaVersion,
    },
    policy: { type: spec.policy.type, value: String(spec.policy.value) },
    image: { image: spec.image.image, authId: spec.image.authId, command: spec.image.command },
    rootfsSize: spec.rootfsSize,
    // `size` is returned for local volumes only
    volumeMounts: spec.volumeMounts.map((m) => (m.type === 'local'
      ? { type: m.type, id: m.id, size: m.size, mountPath: m.mountPath }
      : { type: m.type, id: m.id, mountPath: m.mountPath })),
    envs: spec.envs.map((e) => ({ key: e.key, value: e.value })),
    workers: workers.filter((w) => w.endpointId === r.id).map((w) => workerView(s, w)),
    products: [{ id: spec.productId }],
    healthy: { ...spec.healthy },
    ...(network ? { clusterID: spec.clusterId } : {}),
    log: endpointLogUrl(s, r.id),
  };
}

/** The endpoint of `GET /endpoint`: ports[].port an integer. */
export function endpointView(s: ServerlessSettings, r: EndpointRow, workers: WorkerRow[]) {
  return { ...baseView(s, r, workers), ports: [{ port: r.spec.port }] };
}

/** An endpoint of `GET /endpoints`: ports[].port a string. */
export function endpointListView(s: ServerlessSettings, r: EndpointRow, workers: WorkerRow[]) {
  return { ...baseView(s, r, workers), ports: [{ port: String(r.spec.port) }] };
}
