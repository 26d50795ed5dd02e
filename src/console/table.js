// @ts-check
// Tables as data: how many pages a list the server pages has, and rows as CSV text (a
// header of the first row's keys; a value with a comma, quote or line break quoted). No DOM:
// ui.js draws the tables and offers the file; test/console-helpers.test.ts checks these.

/**
 * Pages of `pageSize` rows it takes to show `total` (at least one: an empty list has a page).
 * @param {number} total
 * @param {number} pageSize
 */
export function pageCount(total, pageSize) {
  return Math.max(1, Math.ceil(total / pageSize));
}

/**
 * Rows as CSV, their columns the first row's keys in its order; null and undefined are empty.
 * @param {Record<string, unknown>[]} rows
 */
export function csvText(rows) {
  if (!rows[0]) return '';
  const cols = Object.keys(rows[0]);
  /** @param {unknown} v */
  const esc = (v) => { const s = v === null || v === undefined ? '' : String(v); return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => esc(r[c])).join(','))].join('\n');
}
