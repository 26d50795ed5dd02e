// @ts-check
// The instance create form, as data: its fields as typed, what choosing a template fills in,
// the create-instance request it sends (POST /gpu/instance/create: `command` is the start
// command, `entrypoint`, `envs`, `templateId`, `networkStorages` [{Id, mountPoint}]), and
// which control a refusal naming a field of that request is about. No DOM: pages/instances.js
// renders it and test/console-helpers.test.ts checks it.
import { checkEnvRows, envControlOf, envPairs } from './envs.js';

/** @typedef {any} Json an answer of the API, parsed */
/** @typedef {import('./envs.js').EnvRow} EnvRow */

/** The create form's fields as typed (text: the form keeps exactly what was typed). */
export const BLANK = {
  name: '', productId: '', gpuNum: '1', templateId: '', imageUrl: 'nginx:latest', rootfsSize: /** @type {string | null} */ (null), ports: '',
  command: '', entrypoint: '', envs: /** @type {EnvRow[]} */ ([]), storageId: '', mountPoint: '/network',
};
/** @typedef {typeof BLANK} InstanceFields */

/** The request's fields that are one of the form's controls, by the same name. */
const SAME = ['name', 'productId', 'gpuNum', 'templateId', 'imageUrl', 'rootfsSize', 'ports', 'command', 'entrypoint'];

/**
 * What a template chosen fills in, to be seen and changed before Create: its start command,
 * entrypoint and variables (its image, disk and ports are the template's: not sent).
 * @param {InstanceFields} form
 * @param {Json | undefined} t the template (the list's view), undefined for "none"
 * @returns {InstanceFields}
 */
export function withTemplate(form, t) {
  if (!t) return { ...form, templateId: '' };
  return { ...form, templateId: t.Id, command: t.startCommand ?? '', entrypoint: t.entrypoint ?? '', envs: (t.envs ?? []).map((/** @type {EnvRow} */ e) => ({ key: e.key, value: e.value })) };
}

/**
 * The form's own checks (the API's rules on what it checks here), each at its control.
 * @param {InstanceFields} form
 * @returns {Record<string, string>}
 */
export function checkInstanceForm(form) {
  /** @type {Record<string, string>} */
  const bad = checkEnvRows(form.envs);
  if (form.command.length > 2047) bad.command = `at most 2047 characters, got ${form.command.length}`;
  if (form.entrypoint.length > 2047) bad.entrypoint = `at most 2047 characters, got ${form.entrypoint.length}`;
  if (form.storageId && !form.mountPoint.startsWith('/')) bad.mountPoint = 'must be an absolute path (start with /)';
  return bad;
}

/**
 * The create request, and for its `envs` the row each pair came from (for a refusal's field).
 * @param {InstanceFields} form
 * @param {{ productId: string, disk: string }} chosen the product shown as chosen, the disk shown
 */
export function instanceBody(form, chosen) {
  const { envs, rowOf } = envPairs(form.envs);
  /** @type {Record<string, unknown>} */
  const body = { name: form.name, productId: chosen.productId, gpuNum: Number(form.gpuNum), kind: 'gpu', billingMode: 'onDemand', command: form.command, entrypoint: form.entrypoint, envs };
  if (form.templateId) body.templateId = form.templateId;
  else { body.imageUrl = form.imageUrl; body.rootfsSize = Number(chosen.disk); if (form.ports) body.ports = form.ports; }
  if (form.storageId) body.networkStorages = [{ Id: form.storageId, mountPoint: form.mountPoint }];
  return { body, rowOf };
}

/**
 * The control a refusal's field names (`envs.<row>.key` for a variable), or undefined when it
 * is none of the form's.
 * @param {string} apiField
 * @param {number[]} rowOf
 */
export function instanceControlOf(apiField, rowOf) {
  if (SAME.includes(apiField)) return apiField;
  if (/^networkStorages(\[\d+\]\.Id)?$/.test(apiField) || apiField === 'clusterId') return 'storageId';
  if (/^networkStorages\[\d+\]\.mountPoint$/.test(apiField)) return 'mountPoint';
  return envControlOf(apiField, rowOf);
}
