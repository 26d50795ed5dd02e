// @ts-check
// The serverless page's create form, as data: the fields as typed, the form's own checks at
// their fields against the operator's ranges (/endpoint/limit), the request body it sends, and
// which field an API refusal names. The create request (POST /endpoint/create) carries the
// start command as `image.command`, the variables as `envs`, a network storage as a
// `volumeMounts` entry of type `network` with `clusterID` its cluster (the API requires it).
// No DOM: the page (pages/serverless.js) renders it and test/console-helpers.test.ts checks it.
import { checkEnvRows, envControlOf, envPairs } from './envs.js';

/**
 * An answer of the API, parsed (as api.js's Json; named here so this module stays apart from the one that fetches).
 * @typedef {any} Json
 */

/** The create form's fields as typed (text: kept exactly when the API refuses). */
export const BLANK = {
  name: '', image: '', port: '8000', productId: '', gpuNum: '1', minNum: '1', maxNum: '3', maxConcurrent: '1',
  policyType: 'queue', policyValue: '4', healthPath: '/', command: '', envs: /** @type {import('./envs.js').EnvRow[]} */ ([]),
  storageId: '', mountPath: '/network',
};
/** @typedef {typeof BLANK} CreateFields */

/**
 * The form's control for a field the API names in a refusal (its body's path), or undefined.
 * @param {string} apiField
 * @param {string} prefix `endpoint.` on create, `` on update
 * @param {number[]} [rowOf] the row each variable sent came from (envPairs)
 */
export function formFieldOf(apiField, prefix, rowOf = []) {
  if (!apiField.startsWith(prefix)) return undefined;
  const f = apiField.slice(prefix.length);
  const env = envControlOf(f, rowOf);
  if (env) return env;
  if (f.startsWith('ports')) return 'port';
  if (f.startsWith('products')) return 'productId';
  if (f.startsWith('workerConfig.')) return f.slice('workerConfig.'.length);
  if (/^volumeMounts\[\d+\]\.mountPath$/.test(f)) return 'mountPath';
  if (f.startsWith('volumeMounts') || f === 'clusterID') return 'storageId';
  return /** @type {Record<string, string>} */ ({ name: 'name', appName: 'name', 'image.image': 'image', 'image.command': 'command', 'policy.type': 'policyType', 'policy.value': 'policyValue', 'healthy.path': 'healthPath' })[f];
}

/**
 * A whole number typed in `[min, max]`, or the message at its field.
 * @param {string} text
 * @param {number} min
 * @param {number} max
 */
export function wholeIn(text, min, max) {
  const t = text.trim();
  if (!/^\d+$/.test(t)) return t === '' ? 'required' : 'must be a whole number';
  const n = Number(t);
  return n < min || n > max ? `must be in ${min}–${max}` : undefined;
}

/**
 * The form's own checks (the API judges again), each at its field (a variable's at its row).
 * @param {CreateFields} form
 * @param {Json} l the operator's ranges (/endpoint/limit)
 * @returns {Record<string, string>}
 */
export function checkEndpointForm(form, l) {
  const policyRange = form.policyType === 'queue' ? [l.minQueueWaitTime, l.maxQueueWaitTime] : [l.minRequestNum, l.maxRequestNum];
  /** @type {Record<string, string | undefined>} */
  const found = {
    image: form.image.trim() ? undefined : 'required: the image to run, like ghcr.io/acme/api:1',
    port: wholeIn(form.port, 1, 65535) ?? (['2222', '2223', '2224'].includes(form.port.trim()) ? '2222–2224 are reserved' : undefined),
    gpuNum: wholeIn(form.gpuNum, l.minGPUNum, l.maxGPUNum),
    minNum: wholeIn(form.minNum, l.minWorkerNum, l.maxWorkerNum),
    maxNum: wholeIn(form.maxNum, Math.max(1, l.minWorkerNum), l.maxWorkerNum)
      ?? (Number(form.maxNum) < Number(form.minNum) ? `must be at least the minimum (${form.minNum})` : undefined),
    maxConcurrent: wholeIn(form.maxConcurrent, l.minConcurrencyNum, l.maxConcurrencyNum),
    policyValue: wholeIn(form.policyValue, policyRange[0], policyRange[1]),
    healthPath: form.healthPath.startsWith('/') ? undefined : 'must start with /',
    command: form.command.length > 2047 ? `at most 2047 characters, got ${form.command.length}` : undefined,
    mountPath: form.storageId && !form.mountPath.startsWith('/') ? 'must be an absolute path (start with /)' : undefined,
  };
  return { ...checkEnvRows(form.envs), .../** @type {Record<string, string>} */ (Object.fromEntries(Object.entries(found).filter(([, v]) => v))) };
}

/**
 * The create request's body (POST /endpoint/create) from a form that passed its checks, and
 * the row each variable sent came from (for a refusal naming `endpoint.envs[i]`).
 * @param {CreateFields} form
 * @param {string} productId
 * @param {Json | undefined} storage the network storage chosen (its list entry), if any
 */
export function endpointBody(form, productId, storage) {
  const name = form.name.trim();
  const { envs, rowOf } = envPairs(form.envs);
  const body = {
    endpoint: {
      ...(name ? { name } : {}),
      image: { image: form.image.trim(), ...(form.command ? { command: form.command } : {}) },
      ports: [{ port: Number(form.port) }],
      products: [{ id: productId }],
      workerConfig: { gpuNum: Number(form.gpuNum), minNum: Number(form.minNum), maxNum: Number(form.maxNum), maxConcurrent: Number(form.maxConcurrent) },
      policy: { type: form.policyType, value: Number(form.policyValue) },
      healthy: { path: form.healthPath },
      envs,
      ...(storage ? { volumeMounts: [{ type: 'network', id: storage.storageId, mountPath: form.mountPath }], clusterID: storage.clusterId } : {}),
    },
  };
  return { body, rowOf };
}
