// @ts-check
// Environment variables as rows of a form (the instance and endpoint create forms): the rows
// as typed, the pairs sent (a row left blank is not sent), the checks the API makes on them
// (src/domain/compute/limits.ts checkEnvs: at most 100 pairs, a name of at most 511
// characters, a value of at most 4095), and which row a refusal naming `envs[i].key` means.
// No DOM: workload-fields.js draws the rows, test/console-helpers.test.ts checks these.

/** The API's limits on environment variables (limits.ts MAX_ENVS and checkEnvs). */
export const ENV_LIMITS = { pairs: 100, key: 511, value: 4095 };

/** @typedef {{ key: string, value: string }} EnvRow */

/** A row with neither name nor value is a row not filled in: it is not sent. */
const blank = (/** @type {EnvRow} */ r) => r.key === '' && r.value === '';

/**
 * The pairs to send, and for each the row it came from (a refusal of `envs[i]` is about row `rows[i]`).
 * @param {EnvRow[]} rows
 */
export function envPairs(rows) {
  const rowOf = rows.flatMap((r, i) => (blank(r) ? [] : [i]));
  return { envs: rowOf.map((i) => ({ key: rows[i]?.key ?? '', value: rows[i]?.value ?? '' })), rowOf };
}

/**
 * The API's rules on the rows, each broken one at its control: `envs.<row>.key` or
 * `envs.<row>.value`, or `envs` for their number.
 * @param {EnvRow[]} rows
 * @returns {Record<string, string>}
 */
export function checkEnvRows(rows) {
  /** @type {Record<string, string>} */
  const bad = {};
  const { envs, rowOf } = envPairs(rows);
  if (envs.length > ENV_LIMITS.pairs) bad.envs = `at most ${ENV_LIMITS.pairs} variables, got ${envs.length}`;
  envs.forEach((e, i) => {
    if (e.key.length > ENV_LIMITS.key) bad[`envs.${rowOf[i]}.key`] = `at most ${ENV_LIMITS.key} characters, got ${e.key.length}`;
    if (e.value.length > ENV_LIMITS.value) bad[`envs.${rowOf[i]}.value`] = `at most ${ENV_LIMITS.value} characters, got ${e.value.length}`;
  });
  return bad;
}

/**
 * The control a refusal names, for a field of the API's under `envs` (or its alias `env`):
 * `envs[2].key` → `envs.<the row it came from>.key`; `envs` itself → `envs`. Undefined for
 * any other field.
 * @param {string} apiField the field after the body's prefix (`envs[2].key`)
 * @param {number[]} rowOf envPairs' rowOf for what was sent
 */
export function envControlOf(apiField, rowOf) {
  const m = /^envs?(?:\[(\d+)\](?:\.(key|value))?)?$/.exec(apiField);
  if (!m) return undefined;
  if (m[1] === undefined) return 'envs';
  const row = rowOf[Number(m[1])];
  return row === undefined ? 'envs' : `envs.${row}.${m[2] ?? 'key'}`;
}
