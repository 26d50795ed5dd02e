// The arrows of docs/architecture.md, checked on the source (rules and checker in
// test/helpers/layers.ts): every module load of every file under src/, nested folders
// included, multi-line and dynamic imports too. A new import that breaks a rule fails here
// with the file, the line and the arrow; the checker is shown to catch violations planted on
// purpose, so this test cannot pass by reading nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { importsOf, LAYERS, layerOf, sourceFiles, violations, type Exception, type SourceFile } from './helpers/layers.ts';
import { importCycles } from './helpers/import-cycles.ts';

const root = join(import.meta.dirname, '..');

/** Loads the checker cannot resolve, read by hand. */
const EXCEPTIONS: Exception[] = [
  {
    file: 'src/store/pglite-worker.ts', loads: undefined,
    why: 'the database thread loads the procedures the root hands it by URL (domain/usage/procedures.ts, from cli/commands.ts): injected like a port',
  },
];

test('every import of the source keeps to the arrows of docs/architecture.md', () => {
  assert.deepEqual(violations(sourceFiles(root), EXCEPTIONS), []);
});

// A circle of imports, of types or through import(), is a set of files that can be read,
// moved and tested only together; the arrows above cannot see one inside a layer.
test('no import circle in the source: every file reaches itself through no import, of types or import() either', () => {
  assert.deepEqual(importCycles(sourceFiles(root)), []);
});

test('planted circles are found, each named by its shortest loop; a diamond, tests and packages are none', () => {
  const planted = [
    // a loop of types only, and one closed by import()
    file('domain/a.ts', "import type { B } from './b.ts';"),
    file('domain/b.ts', "import { a } from './a.ts';"),
    file('store/db.ts', "import { t } from './template.ts';"),
    file('store/template.ts', "const { openStore } = await import('./db.ts');"),
    // three files, and a fourth inside the same circle that the shortest loop passes by
    file('jobs/x.ts', "import { y } from './y.ts';", "import { w } from './w.ts';"),
    file('jobs/y.ts', "import { z } from './z.ts';"),
    file('jobs/z.ts', "export { x } from './x.ts';"),
    file('jobs/w.ts', "import { y } from './y.ts';"),
    // a file that imports itself
    file('lib/self.ts', "import { me } from './self.ts';"),
    // none: a diamond, a package, a test that imports its subject, a file outside the tree
    file('gateway/top.ts', "import { l } from './left.ts';", "import { r } from './right.ts';", "import 'fastify';"),
    file('gateway/left.ts', "import { b } from './bottom.ts';"),
    file('gateway/right.ts', "import { b } from './bottom.ts';"),
    file('gateway/bottom.ts', "import { x } from '../../test/helpers/x.ts';"),
    file('gateway/bottom.test.ts', "import { b } from './bottom.ts';"),
    file('gateway/bottom-again.ts', "import { b } from './bottom.test.ts';"),
  ];
  assert.deepEqual(importCycles(planted).sort(), [
    'circle of 1 file: src/lib/self.ts → src/lib/self.ts',
    'circle of 2 files: src/domain/a.ts → (type) src/domain/b.ts → src/domain/a.ts',
    'circle of 2 files: src/store/db.ts → src/store/template.ts → (import()) src/store/db.ts',
    'circle of 4 files: src/jobs/w.ts → src/jobs/y.ts → src/jobs/z.ts → src/jobs/x.ts → src/jobs/w.ts',
  ]);
  // one circle of three files whose shortest loop through the first passes the third by
  const wide = [
    file('domain/a.ts', "import { b } from './b.ts';"),
    file('domain/b.ts', "import { a } from './a.ts';", "import { c } from './c.ts';"),
    file('domain/c.ts', "import { b } from './b.ts';"),
  ];
  assert.deepEqual(importCycles(wide), ['circle of 3 files: src/domain/a.ts → src/domain/b.ts → src/domain/a.ts; also in it: src/domain/c.ts']);
});

test('the checker reads the whole tree: every layer has files, nested folders included', () => {
  const files = sourceFiles(root);
  const layers = new Set(files.map((f) => layerOf(f.path.slice('src/'.length))));
  assert.deepEqual(LAYERS.filter((l) => !layers.has(l)), []);
  const memory = files.find((f) => f.path === 'src/adapters/counters/memory.ts');
  assert.ok(memory, 'a file two folders down is read');
  assert.ok(importsOf(memory.text).some((i) => i.specifier === '../../domain/spend/counters.ts'));
  assert.ok(files.reduce((n, f) => n + importsOf(f.text).length, 0) > 2000, 'the source has thousands of imports');
});

test('every form of module load is read; comments, strings and regular expressions are not', () => {
  const src = [
    "import {",
    "  a,",
    "  b,",
    "} from './multi-line.ts';",
    "import type { T } from './types-only.ts';",
    "import type Default from './type-default.ts';",
    "import { type U, type V } from './inline-types-still-load.ts';",
    "import * as ns from './namespace.ts';",
    "import def, { c } from './default-and-named.ts';",
    "import './side-effect.ts';",
    "export { d } from './re-export.ts';",
    "export * from './star.ts';",
    "export * as star from './star-as.ts';",
    "export type { W } from './type-re-export.ts';",
    "export { local };",
    "export const x = 1;",
    "// import { no } from './line-comment.ts';",
    "/* import { no } from './block-comment.ts'; */",
    "const s = \"import { no } from './in-a-string.ts'\";",
    "const re = /['\"]from '.\\/in-a-regex.ts'/;",
    "const tpl = `import('./in-a-template.ts') \u0024{s} from './in-a-template-too.ts'`;", // \u0024: `$`
    "const lazy = await import('./dynamic.ts');",
    "const lazy2 = await import(`./dynamic-template.ts`);",
    "const computed = await import(url);",
    "const computed2 = await import(`./\u0024{name}.ts`);",
    "const meta = import.meta.url;",
    "obj.import('./a-method-not-a-load.ts');",
  ].join('\n');
  const found = importsOf(src).map((i) => `${i.line} ${i.specifier ?? '(computed)'}${i.typeOnly ? ' type' : ''}${i.dynamic ? ' dynamic' : ''}`);
  assert.deepEqual(found, [
    '1 ./multi-line.ts',
    '5 ./types-only.ts type',
    '6 ./type-default.ts type',
    '7 ./inline-types-still-load.ts',
    '8 ./namespace.ts',
    '9 ./default-and-named.ts',
    '10 ./side-effect.ts',
    '11 ./re-export.ts',
    '12 ./star.ts',
    '13 ./star-as.ts',
    '14 ./type-re-export.ts type',
    '22 ./dynamic.ts dynamic',
    '23 ./dynamic-template.ts dynamic',
    '24 (computed) dynamic',
    '25 (computed) dynamic',
  ]);
});

/** One file of a synthetic tree: `path` under src/, its imports. */
function file(path: string, ...imports: string[]): SourceFile {
  return { path: `src/${path}`, text: imports.join('\n') };
}

test('planted violations are reported, one per broken arrow; allowed arrows are not', () => {
  const planted = [
    // allowed
    file('http/plugins/x.ts', "import { health } from '../../store/health.ts';", "import type { Config } from '../../config.ts';"),
    file('http/routes/x/op.ts', "import { f } from '../../../domain/x.ts';", "import { run } from '../../../gateway/gateway.ts';"),
    file('jobs/x.ts', "import { Gateway } from '../gateway/gateway.ts';"),
    file('gateway/x.ts', "import { ModelSim } from '../model-sim/model.ts';", "import type { GatewayConfig } from '../config.ts';"),
    file('adapters/counters/x.ts', "import { scopeKey } from '../../domain/spend/scopes.ts';", "import { pool } from '../../store/db.ts';"),
    file('store/blobs/x.ts', "import type { BlobConfig } from '../../config.ts';", "import { ids } from '../../lib/ids.ts';"),
    file('drivers/x.ts', "import { ModelSim } from '../model-sim/model.ts';"),
    file('model-sim/x.ts', "import { rng } from '../lib/prng.ts';"),
    file('services.ts', "import { MemoryCounters } from './adapters/counters/memory.ts';"),
    file('cli/x.ts', "const { openStore } = await import('../store/db.ts');"),
    file('domain/x.test.ts', "import { MemoryAuthFailures } from '../adapters/counters/auth-failures.ts';"),
    // broken
    file('store/counters/x.ts', "import {", "  NO_RATE_VIEW,", "  tokensResetMs,", "} from '../../domain/spend/counters.ts';"),
    file('store/deep/er/y.ts', "import type { Counters } from '../../../domain/spend/counters.ts';"),
    file('store/z.ts', "const m = await import('../gateway/gateway.ts');"),
    file('http/routes/x/bad.ts', "import { listKeys } from '../../../store/keys.ts';"),
    file('drivers/sim-worker.ts', "import { SimUpstream } from '../gateway/upstreams/sim.ts';"),
    file('model-sim/y.ts', "import type { ModelBody } from '../gateway/upstreams/upstream.ts';"),
    file('lib/x.ts', "export { AppError } from '../domain/errors.ts';"),
    file('lib/y.ts', "import type { Config } from '../config.ts';"),
    file('domain/y.ts', "import { MemoryLoad } from '../adapters/serverless-load/memory.ts';", "import { enqueue } from '../jobs/runner.ts';"),
    file('domain/z.ts', "import { loadConfig } from '../config.ts';"),
    file('gateway/y.ts', "import { errors } from '../http/plugins/errors.ts';"),
    file('http/plugins/y.ts', "import type { Services } from '../../services.ts';"),
    file('jobs/y.ts', "import { ChatBody } from '../http/routes/openai/schemas.ts';"),
    file('store/w.ts', 'const m = await import(url);'),
    file('store/v.ts', "import { x } from '../../test/helpers/x.ts';"),
    file('newlayer/x.ts'),
  ];
  const stale: Exception = { file: 'src/store/gone.ts', loads: undefined, why: 'paid' };
  assert.deepEqual(violations(planted, [stale]), [
    'src/store/counters/x.ts:1 store → domain: ../../domain/spend/counters.ts',
    'src/store/deep/er/y.ts:1 store → domain (type): ../../../domain/spend/counters.ts',
    'src/store/z.ts:1 store → gateway: ../gateway/gateway.ts',
    'src/http/routes/x/bad.ts:1 routes → store: ../../../store/keys.ts',
    'src/drivers/sim-worker.ts:1 drivers → gateway: ../gateway/upstreams/sim.ts',
    'src/model-sim/y.ts:1 model-sim → gateway (type): ../gateway/upstreams/upstream.ts',
    'src/lib/x.ts:1 lib → domain: ../domain/errors.ts',
    'src/lib/y.ts:1 lib → root (type): ../config.ts',
    'src/domain/y.ts:1 domain → adapters: ../adapters/serverless-load/memory.ts',
    'src/domain/y.ts:2 domain → jobs: ../jobs/runner.ts',
    'src/domain/z.ts:1 domain → root: ../config.ts',
    'src/gateway/y.ts:1 gateway → http: ../http/plugins/errors.ts',
    'src/http/plugins/y.ts:1 http → root (type): ../../services.ts',
    'src/jobs/y.ts:1 jobs → routes: ../http/routes/openai/schemas.ts',
    'src/store/w.ts:1 store: import() of a computed module, which cannot be checked',
    'src/store/v.ts:1 store → outside src/: ../../test/helpers/x.ts',
    'src/newlayer/x.ts is in no layer: place it in one of root, http, routes, jobs, gateway, domain, adapters, store, drivers, model-sim, lib, console (test/helpers/layers.ts)',
    'exception no longer needed, strike it off: src/store/gone.ts → import(…) (paid)',
  ]);
});

test('a violation planted in a nested folder of a tree on disk is found by the same walk', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-layers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  put('src/domain/spend/counters.ts', 'export const NO_RATE_VIEW = {};\n');
  put('src/store/db.ts', "import { ids } from '../lib/ids.ts';\n");
  put('src/store/counters/x.ts', "// a store file\nimport type { Counters } from '../../domain/spend/counters.ts';\nimport {\n  NO_RATE_VIEW,\n} from '../../domain/spend/counters.ts';\n");
  put('src/store/counters/x.test.ts', "import { NO_RATE_VIEW } from '../../domain/spend/counters.ts';\n");
  assert.deepEqual(violations(sourceFiles(dir)), [
    'src/store/counters/x.ts:2 store → domain (type): ../../domain/spend/counters.ts',
    'src/store/counters/x.ts:3 store → domain: ../../domain/spend/counters.ts',
  ]);
});

// The domain enqueues by its areas' job types (ctx.jobs, domain/jobs/queue.ts); the types stay
// leaves anyone may import: what a job type is (job-type.ts), and each area's (domain/<area>/jobs.ts).
test('job types are leaves: job-type.ts imports typebox alone, an area\'s jobs.ts typebox and job-type.ts', () => {
  const files = sourceFiles(root);
  const jobType = files.find((f) => f.path === 'src/domain/jobs/job-type.ts');
  assert.ok(jobType, 'job-type.ts is read');
  assert.deepEqual(importsOf(jobType.text).map((i) => i.specifier).filter((s) => s !== 'typebox'), []);
  const areas = files.filter((f) => /^src\/domain\/[^/]+\/(jobs|system-jobs)\.ts$/.test(f.path));
  assert.ok(areas.length >= 8, `every area's job types are read (${areas.length})`);
  for (const f of areas) {
    const others = importsOf(f.text).map((i) => i.specifier).filter((s) => s !== 'typebox' && !s?.endsWith('/job-type.ts'));
    assert.deepEqual(others, [], f.path);
  }
});

// One logger type for every layer (lib/logger.ts): Fastify's is named only where Fastify is
// typed (http/types.ts, the app's type), and no module declares a logger shape of its own.
const FASTIFY_LOGGER_ALLOWED = new Map([
  ['src/http/types.ts', 'the app\'s Fastify type names its logger'],
  ['src/http/terminal-socket.ts', 'being reworked with the web terminals in a parallel change; moves to Logger when that lands'],
]);

/** Files that name Fastify's or pino's logger types, or declare an interface of log methods. */
function loggerTypes(files: SourceFile[]): string[] {
  return files.filter((f) => f.path.startsWith('src/') && !f.path.endsWith('.test.ts') && f.path !== 'src/lib/logger.ts').flatMap((f) => {
    const found: string[] = [];
    if (/\b(FastifyBaseLogger|FastifyLoggerInstance|pino\.Logger|BaseLogger)\b/.test(f.text) && !FASTIFY_LOGGER_ALLOWED.has(f.path)) found.push(`${f.path}: names Fastify's logger type`);
    if (/\binterface \w*Log(?:ger)?\b[^{]*\{[^}]*\b(?:warn|error|info)\??\(/.test(f.text)) found.push(`${f.path}: declares a logger interface`);
    return found;
  });
}

test('one Logger type: no module but lib/logger.ts declares one, Fastify\'s is named only where the app is typed', () => {
  assert.deepEqual(loggerTypes(sourceFiles(root)), []);
  assert.deepEqual(loggerTypes([
    file('store/x.ts', 'export interface HealthLog {\n  warn(obj: object, msg: string): void;\n}'),
    file('gateway/x.ts', "import type { FastifyBaseLogger } from 'fastify';"),
    file('gateway/y.ts', "import type { Logger } from '../lib/logger.ts';\nexport interface Options { log: Logger }"),
  ]), ['src/store/x.ts: declares a logger interface', "src/gateway/x.ts: names Fastify's logger type"]);
  for (const path of FASTIFY_LOGGER_ALLOWED.keys()) assert.ok(sourceFiles(root).some((f) => f.path === path && f.text.includes('FastifyBaseLogger')), `${path} still needs its exception`);
});
