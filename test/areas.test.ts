// src/areas.ts is the one list of areas: every route folder is an area there, and every
// operation file of a folder is registered by its index.ts, once (a route written and not
// listed would otherwise answer 404 with no test failing for it); every job type is handled
// by one area and its name written once; an area's context is built after the ones it reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AREAS, JOB_TYPES, type Area } from '../src/areas.ts';
import { buildAreaContexts, type Core } from '../src/services.ts';
import { sourceFiles, tokenize } from './helpers/layers.ts';

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

/** Each `defineJob({ name: '…'` of a source text: the names it defines. */
function definedJobs(text: string): string[] {
  const t = tokenize(text);
  const out: string[] = [];
  for (let k = 0; k < t.length; k++) {
    const at = (d: number, value: string) => t[k + d]?.value === value && t[k + d]!.kind !== 'string';
    if (at(0, 'defineJob') && at(1, '(') && at(2, '{') && at(3, 'name') && at(4, ':') && t[k + 5]?.kind === 'string') out.push(t[k + 5]!.value!);
  }
  return out;
}

const sources = sourceFiles(join(import.meta.dirname, '..')).filter((f) => !f.path.endsWith('.test.ts'));

test('every job type defined in src/ is handled by one area, and the catalogue holds no other', () => {
  const defined = sources.flatMap((f) => definedJobs(f.text).map((name) => ({ name, file: f.path })));
  assert.ok(defined.length >= 16, `the job types are found (${defined.length})`);
  assert.deepEqual(defined.map((d) => d.name).sort(), JOB_TYPES.map((j) => j.name).sort(), 'defined = handled by an area (src/areas.ts)');
  assert.equal(new Set(JOB_TYPES.map((j) => j.name)).size, JOB_TYPES.length, 'no job type is handled twice');
  for (const d of defined) assert.match(d.file, /^src\/domain\/[^/]+\/(jobs|system-jobs)\.ts$/, `${d.name} is defined in its area's jobs.ts`);
});

test('a job\'s name is written once in src/: where it is defined; everything else names the type', () => {
  const names = new Set(JOB_TYPES.map((j) => j.name));
  const written = new Map<string, string[]>();
  for (const f of sources) {
    for (const tok of tokenize(f.text)) {
      if ((tok.kind === 'string' || tok.kind === 'template') && tok.value !== undefined && names.has(tok.value)) {
        written.set(tok.value, [...(written.get(tok.value) ?? []), `${f.path}:${tok.line}`]);
      }
    }
  }
  assert.deepEqual([...written].filter(([, at]) => at.length !== 1), [], 'each name once');
  assert.equal(written.size, names.size, 'every name is found where it is defined');
});

test('the checks read what they are meant to: a definition, and a name written twice', () => {
  const text = "export const X = { a: defineJob({ name: 'x.a', payload }), b: defineJob({\n  name: 'x.b' }) };\nrunNow('x.a'); // 'x.c'";
  assert.deepEqual(definedJobs(text), ['x.a', 'x.b']);
  assert.deepEqual(tokenize(text).filter((t) => t.kind === 'string').map((t) => t.value), ['x.a', 'x.b', 'x.a']);
});

test('an area whose context reads a part no area above it builds fails the start naming both; a context added twice too', () => {
  const core = {} as Core;
  const reads = (key: string) => (s: never) => (s as Record<string, unknown>)[key];
  assert.throws(() => buildAreaContexts(core, [
    { name: 'late', routes: [], contexts: { late: reads('early') } },
    { name: 'early', routes: [], contexts: { early: () => 1 } },
  ]), /area late's late reads early, which no area before it builds \(src\/areas\.ts\)/);
  const built = buildAreaContexts(core, [
    { name: 'early', routes: [], contexts: { early: () => 1 } },
    { name: 'late', routes: [], contexts: { late: reads('early') } },
  ]) as unknown as Record<string, unknown>;
  assert.deepEqual([built.early, built.late], [1, 1]);
  assert.throws(() => buildAreaContexts(core, [
    { name: 'a', routes: [], contexts: { files: () => 1 } },
    { name: 'b', routes: [], contexts: { files: () => 2 } },
  ]), /area b adds files to the service graph, which has one already/);
});
