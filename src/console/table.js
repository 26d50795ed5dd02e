// @ts-check
// Tables as data: how many pages a list the server pages has, rows as CSV text (a header of
// the first row's keys; a value with a comma, quote or line break quoted), and on which sides
// a table wider than its box has more to scroll to. No DOM: ui.js draws the tables (and the
// scroll affordance from scrollEdges) and offers the file; test/console-helpers.test.ts checks these.

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

/**
 * Which sides of a scrolled box hide more of what it holds: a table wider than the screen
 * shows that it scrolls (a shadow at each such edge and a hint, app.css). A pixel of rounding
 * (zoomed pages scroll by fractions) is not more to see.
 * @param {{ scrollLeft: number, scrollWidth: number, clientWidth: number }} box
 * @returns {{ left: boolean, right: boolean }}
 */
export function scrollEdges({ scrollLeft, scrollWidth, clientWidth }) {
  // scrollLeft is negative in a right-to-left page: what is hidden is measured from either end alike
  const before = Math.abs(scrollLeft);
  return { left: before > 1, right: scrollWidth - clientWidth - before > 1 };
}
