// What the ports proxy routes a call by (an instance's team, status, ports and endpoints) is
// cached and dropped by `instance.changed` (domain/compute/instance-routes.ts), which only
// compute/status.ts writeInstanceTx and the create announce. A write of an instance row
// anywhere else would leave the cache stale (a stopped instance still served): so outside the
// store, `updateInstance` is called by writeInstanceTx only, and `insertInstance(s)` by the
// create, which announces the new row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const ALLOWED: Record<string, string[]> = {
  updateInstance: ['domain/compute/status.ts'],
  insertInstance: ['domain/compute/instances.ts'],
  insertInstances: [],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

test('instance rows are written outside the store only where instance.changed is announced', () => {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file);
    if (rel.startsWith('store/')) continue;
    const text = readFileSync(file, 'utf8');
    for (const [fn, allowed] of Object.entries(ALLOWED)) {
      if (new RegExp(`\\b${fn}\\(`).test(text) && !allowed.includes(rel)) found.push(`${rel} calls ${fn}`);
    }
  }
  assert.deepEqual(found, [], 'write through writeInstanceTx (domain/compute/status.ts)');
});
