// @ts-check
// The serverless page's create form, as data: the fields as typed, the form's own checks at
// their fields against the operator's ranges (/endpoint/limit), the request body it sends, and
// which field an API refusal names. No DOM: the page (pages/serverless.js) renders it and
// test/console-helpers.test.ts checks it.

/**
 * An answer of the API, parsed (as api.js's Json; named here so this module stays apart from the one that fetches).
 * @typedef {any} Json
 */

/** The create form's fields as typed (text: kept exactly when the API refuses). */
export const BLANK = {
  name: '', image: '', port: '8000', productId: '', gpuNum: '1', minNum: '1', maxNum: '3', maxConcurrent: '1',
  policyType: 'queue', policyValue: '4', healthPath: '/', envs: '',
};
/** @typedef {typeof BLANK} CreateFields */

/**
 * The form's field for a field the API names in a refusal (its body's path), or undefined.
 * @param {string} apiField
 * @param {string} prefix `endpoint.` on create, `` on update
 */
export function formFieldOf(apiField, prefix) {
  if (!apiField.startsWith(prefix)) return undefined;
  const f = apiField.slice(prefix.length);
  if (f.startsWith('envs') || f.startsWith('env[') || f === 'env') return 'envs';
  if (f.startsWith('ports')) return 'port';
  if (f.startsWith('products')) return 'productId';
  if (f.startsWith('workerConfig.')) return f.slice('workerConfig.'.length);
  return /** @type {Record<string, string>} */ ({ name: 'name', appName: 'name', 'image.image': 'image', 'policy.type': 'policyType', 'policy.value': 'policyValue', 'healthy.path': 'healthPath' })[f];
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
 * Environment variables typed one per line as KEY=value, or the line that is not.
 * @param {string} text
 * @returns {{ envs: { key: string, value: string }[] } | { error: string }}
 */
export function parseEnvs(text) {
  /** @type {{ key: string, value: string }[]} */
  const envs = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = /** @type {string} */ (lines[i]);
    if (!line.trim()) continue;
    const eq = line.indexOf('=');
    if (eq < 1) return { error: `line ${i + 1}: write KEY=value` };
    envs.push({ key: line.slice(0, eq).trim(), value: line.slice(eq + 1) });
  }
  return { envs };
}

/**
 * The form's own checks (the API judges again), each at its field; with the environment parsed.
 * @param {CreateFields} form
 * @param {Json} l the operator's ranges (/endpoint/limit)
 * @returns {{ bad: Record<string, string>, envs: { key: string, value: string }[] }}
 */
export function checkEndpointForm(form, l) {
  const envs = parseEnvs(form.envs);
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
    envs: 'error' in envs ? envs.error : undefined,
  };
  const bad = /** @type {Record<string, string>} */ (Object.fromEntries(Object.entries(found).filter(([, v]) => v)));
  return { bad, envs: 'envs' in envs ? envs.envs : [] };
}

/**
 * The create request's body (POST /endpoint/create) from a form that passed its checks.
 * @param {CreateFields} form
 * @param {string} productId
 * @param {{ key: string, value: string }[]} envs
 */
export function endpointBody(form, productId, envs) {
  const name = form.name.trim();
  return {
    endpoint: {
      ...(name ? { name } : {}),
      image: { image: form.image.trim() },
      ports: [{ port: Number(form.port) }],
      products: [{ id: productId }],
      workerConfig: { gpuNum: Number(form.gpuNum), minNum: Number(form.minNum), maxNum: Number(form.maxNum), maxConcurrent: Number(form.maxConcurrent) },
      policy: { type: form.policyType, value: Number(form.policyValue) },
      healthy: { path: form.healthPath },
      envs,
    },
  };
}
