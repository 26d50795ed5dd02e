// The settings reference (docs/configuration.md) and what the pages name. Its tables render as
// tables (a blank line inside one once left ~30 rows as raw text) and name each setting once
// (GANTRY_PUBLIC_URL had two rows); every setting the code reads has its row, and every row is
// a setting the code reads; and every setting, gantry command and metric a page of the manual
// names exists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { examplePages, read, ROOT } from './helpers/doc-pages.ts';

const CONFIGURATION = read('docs/configuration.md');
const HEADER = '| variable | default | meaning |';

/** The configuration page's tables: each run of table lines, which must start with the header and its delimiter. */
function tables(): string[][] {
  const runs: string[][] = [];
  let run: string[] | undefined;
  for (const line of CONFIGURATION.split('\n')) {
    if (!/^\|.*\|$/.test(line.trim())) {
      run = undefined;
      continue;
    }
    if (!run) {
      run = [];
      runs.push(run);
    }
    run.push(line);
  }
  return runs;
}

/** The settings a table row names in its first column. */
function rowNames(row: string): string[] {
  return [...row.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!);
}

function tableNames(): string[] {
  return tables().flatMap((t) => t.slice(2)).flatMap(rowNames);
}

test('the configuration page\'s tables are tables, by subject, and name each setting once', () => {
  const runs = tables();
  assert.ok(runs.length >= 8, `${runs.length} tables: one per subject`);
  for (const t of runs) {
    // a row after a break in a table would render as raw text: every run starts with the header
    assert.equal(t[0], HEADER, `a table without its header (a blank line inside a table?) at: ${t[0]}`);
    assert.match(t[1]!, /^\|(-+\|)+$/, 'its delimiter row');
    assert.ok(t.length > 2, 'a table without rows');
  }
  const rows = runs.flatMap((t) => t.slice(2));
  assert.ok(rows.length >= 60, `${rows.length} rows`);
  const names = tableNames();
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  assert.deepEqual(twice, [], 'settings listed more than once');
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'GANTRY_PUBLIC_URL', 'GANTRY_REDIS_PREFIX', 'GANTRY_BLOB_STORE', 'GANTRY_MEDIA_TASK_TTL_DAYS']) {
    assert.ok(names.includes(name), `${name} in the tables`);
  }
});

// ---- every setting the code reads is documented; every setting and command a page names exists

/** The environment variables the code reads: src/config.ts, the drivers' settings, and the entry and CLI. */
function settingsRead(): Set<string> {
  const files = [join(ROOT, 'src', 'config.ts'), join(ROOT, 'src', 'drivers', 'index.ts')];
  const drivers = join(ROOT, 'src', 'drivers');
  for (const d of readdirSync(drivers, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    for (const f of ['index.ts', 'settings.ts']) if (existsSync(join(drivers, d.name, f))) files.push(join(drivers, d.name, f));
  }
  const names = new Set<string>();
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    // read as `env.NAME`, or named to a reader (`r.int('NAME', …)`): comments do not count
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b|\(\s*'([A-Z][A-Z0-9_]+)'/g)) names.add(m[1] ?? m[2]!);
  }
  return names;
}

/** What the CLI reads beyond the configuration (src/cli, the entry): the admin CLI's server and token. */
function cliSettings(): Set<string> {
  const names = new Set<string>();
  for (const f of [join(ROOT, 'src', 'main.ts'), ...readdirSync(join(ROOT, 'src', 'cli')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => join(ROOT, 'src', 'cli', f))]) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b/g)) names.add(m[1]!);
  }
  return names;
}

test('the configuration page lists every setting the code reads, and only those', () => {
  const read = settingsRead();
  assert.ok(read.size >= 60 && read.has('GANTRY_UPSTREAM_TIMEOUT_MS') && read.has('KUBECONFIG') && read.has('HOST'), `read: ${[...read].join(' ')}`);
  const cli = cliSettings();
  assert.ok(cli.has('GANTRY_URL') && cli.has('GANTRY_ADMIN_TOKEN'), `the CLI reads: ${[...cli].join(' ')}`);
  const listed = new Set(tableNames());
  assert.deepEqual([...read, ...cli].filter((n) => !listed.has(n)).sort(), [], 'settings the code reads (src/config.ts, a driver, the CLI) missing from docs/configuration.md');
  // and the other way: a row for a setting nothing reads is a setting that does nothing
  const known = new Set([...read, ...cli, 'MALLOC_MMAP_THRESHOLD_']);
  assert.deepEqual([...listed].filter((n) => !known.has(n)).sort(), [], 'rows for settings the code does not read');
});

/** Variables the test helpers read: switches of the test suites, which the pages may name too. */
function testSwitches(): Set<string> {
  const names = new Set<string>();
  const dir = join(ROOT, 'test', 'helpers');
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/\b(GANTRY_TEST_[A-Z0-9_]+)\b/g)) names.add(m[1]!);
  }
  return names;
}

test('the pages name only settings that exist', () => {
  const known = new Set([...settingsRead(), ...cliSettings(), 'MALLOC_MMAP_THRESHOLD_', ...testSwitches()]);
  const unknown: string[] = [];
  let named = 0;
  for (const page of examplePages()) {
    for (const m of read(page).matchAll(/\b(GANTRY_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL|REDIS_URL|KUBECONFIG|LOG_LEVEL)\b/g)) {
      named++;
      if (!known.has(m[1]!)) unknown.push(`${page}: ${m[1]}`);
    }
  }
  assert.ok(named >= 100, `${named} settings named`);
  assert.deepEqual([...new Set(unknown)].sort(), [], 'settings a page names that the code does not read');
});

/** What `gantry admin help` lists: commands that take arguments, and groups with their subcommands. */
function adminEntries(help: string): { commands: Set<string>; groups: Map<string, Set<string>> } {
  const commands = new Set<string>(['help']);
  const groups = new Map<string, Set<string>>();
  // entries sit in two columns: chunks between runs of spaces, each starting with its words
  for (const chunk of help.split('\n').flatMap((l) => l.trim().split(/\s{2,}/))) {
    const m = /^([a-z][a-z-]*)(?: (\S+))?/.exec(chunk);
    if (!m) continue;
    if (m[2] && /^[a-z][a-z-]*$/.test(m[2])) groups.set(m[1]!, (groups.get(m[1]!) ?? new Set()).add(m[2]));
    else commands.add(m[1]!);
  }
  return { commands, groups };
}

/** Where a page runs gantry: a line's start, a code span, after npx, `--`, `$(`, `&&`, `;` or a pipe (not an image or namespace named gantry). */
const GANTRY_COMMAND = /(?:^[ \t]*|`|\bnpx |-- |\$\(|&& |; |\| )gantry ([a-z]+)((?: [a-z][a-z-]*)*)/gm;

test('the pages name only gantry commands that exist', async () => {
  const [{ USAGE }, { helpFor }] = await Promise.all([import('../src/cli/commands.ts'), import('../src/cli/admin.ts')]);
  const top = new Set([...USAGE.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!));
  const { commands: adminCommands, groups } = adminEntries(helpFor([])!);
  assert.ok(adminCommands.has('topup') && groups.get('gpu')?.has('inventory'), 'gantry admin help read as commands and groups');
  const named = examplePages().flatMap((page) => [...read(page).matchAll(GANTRY_COMMAND)]
    .map((m) => ({ page, command: m[1]!, words: m[2]!.trim().split(' ').filter(Boolean) })));
  const production = named.filter((c) => c.page === 'docs/production.md');
  assert.ok(production.some((c) => c.command === 'backup') && production.some((c) => c.command === 'admin'), 'production names gantry backup and an admin command');
  const wrong: string[] = [];
  for (const { page, command, words: [w1, w2] } of named) {
    if (!top.has(command)) wrong.push(`${page}: gantry ${command} is not a command (gantry help lists ${[...top].join(', ')})`);
    if (command !== 'admin' || !w1) continue; // `gantry admin …`: the CLI as a whole
    // a group alone prints its help; with a word after it, that word is one of its subcommands
    const sub = groups.get(w1);
    const known = sub ? !w2 || sub.has(w2) || adminCommands.has(w1) : adminCommands.has(w1);
    if (!known) wrong.push(`${page}: gantry admin ${w1}${w2 ? ` ${w2}` : ''} is not in gantry admin help`);
  }
  assert.deepEqual(wrong, []);
});

test('the pages name only metrics /metrics exposes', async () => {
  const { registry } = await import('../src/http/plugins/metrics.ts');
  const exposed = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
  // names of Gantry's that are not series: the console's cookie
  const notMetrics = new Set([...readFileSync(join(ROOT, 'src', 'domain', 'console', 'sessions.ts'), 'utf8').matchAll(/_COOKIE = '([a-z_]+)'/g)].map((m) => m[1]!));
  assert.ok(notMetrics.has('gantry_session'), 'the session cookie\'s name, read from its module');
  const named = new Set(examplePages().flatMap((page) => [...read(page).matchAll(/`((?:gantry|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!)));
  for (const n of notMetrics) named.delete(n);
  assert.ok(named.size >= 8, `${named.size} metrics named`);
  // a histogram is exposed as its name; a page may name its _bucket series
  assert.deepEqual([...named].filter((n) => !exposed.has(n) && !exposed.has(n.replace(/_(bucket|sum|count)$/, ''))).sort(), [], 'metrics a page names that /metrics does not expose');
});
