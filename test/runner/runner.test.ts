// The test runner itself (test/runner/run.ts): files in shared workers keep their hooks to
// themselves, results and failures are reported per file, and a file that hangs, exits or
// throws after its tests fails without stopping the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runFiles, type RunSummary } from './run.ts';
import { filesOf, needsOwnProcess, tierOf } from './tiers.ts';
import { orderByTime } from './times.ts';

const F = 'test/runner/fixtures';

async function run(files: string[], opts: { workers?: number; fileTimeoutMs?: number; isolation?: 'none' | 'process' } = {}): Promise<{ s: RunSummary; lines: string[] }> {
  const lines: string[] = [];
  const s = await runFiles({
    label: 'fixtures', files: files.map((f) => `${F}/${f}`), isolation: opts.isolation ?? 'none', workers: opts.workers ?? 1,
    fileTimeoutMs: opts.fileTimeoutMs ?? 60_000, verbose: false, out: (l) => lines.push(l), keepTimes: false,
  });
  return { s, lines };
}

const result = (s: RunSummary, f: string) => s.results.find((r) => r.file === `${F}/${f}`)!;

test('files in one worker: each keeps its top-level hooks, and runs after the one before it ended', async () => {
  const { s } = await run(['hooks-a.fixture.ts', 'hooks-b.fixture.ts']);
  assert.deepEqual(s.results.map((r) => [r.file.split('/').pop(), r.passed, r.failed]), [['hooks-a.fixture.ts', 1, 0], ['hooks-b.fixture.ts', 1, 0]]);
});

test('a failing file: counts, the failure with its message, skip reasons; the summary has them', async () => {
  const { s, lines } = await run(['failing.fixture.ts']);
  const r = result(s, 'failing.fixture.ts');
  assert.deepEqual([r.passed, r.failed, r.skipped], [1, 1, 1]);
  assert.equal(r.failures[0]!.name, 'fails with its message');
  assert.match(r.failures[0]!.message, /one is not two/);
  assert.deepEqual(r.skips, { 'no such tool here': 1 });
  assert.ok(lines.some((l) => /✖ test\/runner\/fixtures\/failing\.fixture\.ts {2}1 passed, 1 failed, 1 skipped/.test(l)), lines.join('\n'));
});

test('a file that hangs fails at its timeout, one that exits its worker fails, and the files after them still run', async () => {
  const { s } = await run(['hangs.fixture.ts', 'exits.fixture.ts', 'hooks-a.fixture.ts'], { fileTimeoutMs: 3000 });
  assert.match(result(s, 'hangs.fixture.ts').failures[0]!.message, /timed out after 3 s/);
  assert.match(result(s, 'exits.fixture.ts').failures[0]!.message, /worker exited \(code 7\)/);
  assert.equal(result(s, 'hooks-a.fixture.ts').passed, 1);
});

test('an error thrown after a test ended fails its file, as it would in a process of its own', async () => {
  const { s } = await run(['late.fixture.ts', 'hooks-a.fixture.ts']);
  const r = result(s, 'late.fixture.ts');
  assert.equal(r.failed, 1, JSON.stringify(r));
  assert.match(r.failures[0]!.message, /thrown late/);
});

test('isolation process: a process per file, two at a time', async () => {
  const { s } = await run(['hooks-a.fixture.ts', 'failing.fixture.ts', 'hooks-b.fixture.ts'], { isolation: 'process', workers: 2 });
  // hooks-b alone in its process never saw hooks-a's after hook
  assert.equal(result(s, 'hooks-b.fixture.ts').failed, 1);
  assert.equal(result(s, 'hooks-a.fixture.ts').passed, 1);
});

test('tiers by file name; the services tier adds the files that read the services only when they are set', () => {
  assert.equal(tierOf('src/drivers/docker/driver.engines.test.ts'), 'engines');
  assert.equal(tierOf('test/console.browser.test.ts'), 'browser');
  assert.equal(tierOf('src/x/y.test.ts'), 'fast');
  const all = ['a.test.ts', 'b.services.test.ts', 'test/helpers/app.ts'];
  assert.deepEqual(filesOf('services', {}, all), ['b.services.test.ts']);
  assert.ok(filesOf('services', { TEST_DATABASE_URL: 'postgres://x' }).includes('src/http/routes/budgets/budgets.test.ts'));
  assert.ok(!filesOf('fast').some((f) => /\.(engines|browser|image|services|process)\.test\.ts$/.test(f)));
  assert.equal(needsOwnProcess('test/lazy-modules.test.ts'), true);
  assert.equal(needsOwnProcess('src/lib/money.test.ts'), false);
  // the services tier shares workers among the fast tier's files it runs again; every other file has a process
  assert.equal(needsOwnProcess('src/gateway/ports/ports-replicas.services.test.ts'), true);
  assert.equal(needsOwnProcess('src/cli/admin-start.process.test.ts'), true);
  assert.equal(needsOwnProcess('src/http/routes/budgets/budgets.test.ts'), false);
});

test('longest first; a file never timed before the others', () => {
  assert.deepEqual(orderByTime(['a', 'b', 'c', 'd'], { a: 1, b: 5, c: 3 }), ['d', 'b', 'c', 'a']);
});
