// src/areas.ts is the one list of areas: every route folder is an area there, and every
// operation file of a folder is registered by its index.ts, once. A route written and not
// listed would otherwise answer 404 with no test failing for it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AREAS, type Area } from '../src/areas.ts';

const routesDir = join(import.meta.dirname, '../src/http/routes');

/** The operation files of a route folder: those whose default export is a route (a function). */
async function operations(folder: string): Promise<Map<unknown, string>> {
  const out = new Map<unknown, string>();
  for (const file of readdirSync(join(routesDir, folder))) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file === 'index.ts') continue;
    const mod = await import(join(routesDir, folder, file)) as { default?: unknown };
    if (typeof mod.default === 'function') out.set(mod.default, file);
  }
  return out;
}

test('every route folder is one area of src/areas.ts, and its index.ts registers each of its operations once', async () => {
  const folders = readdirSync(routesDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  assert.deepEqual(AREAS.map((a) => a.name).sort(), folders, 'areas = route folders');
  for (const area of AREAS as readonly Area[]) {
    const files = await operations(area.name);
    const listed = area.routes.map((r) => files.get(r) ?? `a route from outside ${area.name}/`);
    assert.equal(new Set(area.routes).size, area.routes.length, `${area.name}: a route is listed twice`);
    assert.deepEqual(listed.sort(), [...files.values()].sort(), `${area.name}/index.ts lists exactly the folder's operations`);
  }
});
