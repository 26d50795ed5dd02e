// The README's configuration table renders as one table (a blank line inside it once left
// ~30 rows as raw text) and names each setting once (GANTRY_PUBLIC_URL had two rows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The lines of the section `## Configuration`, up to its next heading. */
function configurationSection(): string[] {
  const lines = README.split('\n');
  const start = lines.indexOf('## Configuration');
  assert.ok(start >= 0, 'README has a "## Configuration" section');
  const end = lines.findIndex((l, i) => i > start && /^#{2,3} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

test('the configuration table is one table, and names each setting once', () => {
  const section = configurationSection();
  const header = section.findIndex((l) => l.startsWith('| variable |'));
  assert.ok(header >= 0, 'the table\'s header');
  assert.match(section[header + 1]!, /^\|(-+\|)+$/, 'its delimiter row');
  let end = header + 2;
  while (end < section.length && section[end]!.startsWith('|')) end++;
  const rows = section.slice(header + 2, end);
  assert.ok(rows.length >= 60, `${rows.length} rows`);
  // no table row after the table ended: it would render as raw text
  const stray = section.slice(end).filter((l) => /^\|.*\|$/.test(l.trim()));
  assert.deepEqual(stray, [], 'rows after a break in the table');
  const names = rows.flatMap((r) => [...r.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  assert.deepEqual(twice, [], 'settings listed more than once');
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'GANTRY_PUBLIC_URL', 'GANTRY_REDIS_PREFIX', 'GANTRY_BLOB_STORE', 'GANTRY_MEDIA_TASK_TTL_DAYS']) {
    assert.ok(names.includes(name), `${name} in the table`);
  }
});
