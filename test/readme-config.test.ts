// The README's configuration table renders as one table (a blank line inside it once left
// ~30 rows as raw text) and names each setting once (GANTRY_PUBLIC_URL had two rows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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

function tableNames(): string[] {
  const section = configurationSection();
  return section.filter((l) => l.startsWith('| `')).flatMap((r) => [...r.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
}

test('the configuration table lists every setting the code reads', () => {
  const read = settingsRead();
  assert.ok(read.size >= 60 && read.has('GANTRY_UPSTREAM_TIMEOUT_MS') && read.has('KUBECONFIG') && read.has('HOST'), `read: ${[...read].join(' ')}`);
  const listed = new Set(tableNames());
  assert.deepEqual([...read].filter((n) => !listed.has(n)).sort(), [], 'settings read in src/config.ts (or a driver) missing from README\'s configuration table');
  // and the other way: a row for a setting nothing reads is a setting that does nothing
  const known = new Set([...read, ...cliSettings(), 'MALLOC_MMAP_THRESHOLD_']);
  assert.deepEqual([...listed].filter((n) => !known.has(n)).sort(), [], 'rows for settings the code does not read');
});

const PRODUCTION = readFileSync(join(ROOT, 'docs', 'production.md'), 'utf8');

test('docs/production.md names only settings that exist', () => {
  const known = new Set([...settingsRead(), ...cliSettings()]);
  const named = new Set([...PRODUCTION.matchAll(/\b(GANTRY_[A-Z0-9_]+|DATABASE_URL|REDIS_URL|KUBECONFIG|LOG_LEVEL)\b/g)].map((m) => m[1]!));
  assert.ok(named.size >= 15, `${named.size} settings named`);
  assert.deepEqual([...named].filter((n) => !known.has(n)).sort(), [], 'settings docs/production.md names that the code does not read');
});

test('docs/production.md names only gantry commands that exist', async () => {
  const [{ USAGE }, { helpFor }] = await Promise.all([import('../src/cli/commands.ts'), import('../src/cli/admin.ts')]);
  const top = new Set([...USAGE.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]!));
  const adminHelp = helpFor([])!;
  const commands = [...PRODUCTION.matchAll(/\bgantry ([a-z]+)((?: [a-z][a-z-]*)*)/g)].map((m) => ({ command: m[1]!, rest: m[2]!.trim().split(' ').filter(Boolean) }));
  assert.ok(commands.some((c) => c.command === 'backup') && commands.some((c) => c.command === 'admin'), 'the page names gantry backup and an admin command');
  for (const { command, rest } of commands) {
    assert.ok(top.has(command), `gantry ${command} is not a command (gantry help lists ${[...top].join(', ')})`);
    if (command !== 'admin') continue;
    // an admin command is its group and subcommand words as gantry admin help lists them
    const words = rest.slice(0, 2).join(' ');
    assert.ok(words && adminHelp.includes(`  ${words}`), `gantry admin ${words} is not in gantry admin help`);
  }
});

test('the README links docs/production.md, and every relative link of the README and docs/ leads to a file', () => {
  assert.match(README, /\]\(docs\/production\.md\)/);
  const pages = ['README.md', 'DEVELOPERS.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const broken: string[] = [];
  for (const page of pages) {
    // links outside code: fenced blocks and inline code spans are text, not links
    const text = readFileSync(join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue; // http(s), mailto
      if (!existsSync(join(ROOT, dirname(page), target))) broken.push(`${page}: ${target}`);
    }
    // the specification is not in the repository: a page points at docs/interface-notes.md instead
    for (const m of readFileSync(join(ROOT, page), 'utf8').matchAll(/(spec\/compat\.md|spec\/interface\.md)/g)) broken.push(`${page}: ${m[1]} (not in the repository)`);
  }
  assert.deepEqual(broken, []);
});

test('test commands shown in the README and DEVELOPERS.md run the pinned Node (npx node --test), not the machine\'s', () => {
  const bare: string[] = [];
  for (const page of ['README.md', 'DEVELOPERS.md']) {
    for (const m of readFileSync(join(ROOT, page), 'utf8').matchAll(/([A-Za-z]*)\s?node --test (?:--\S+ )*(?:src|test|"?\$|<)/g)) {
      if (m[1] !== 'npx') bare.push(`${page}: ${m[0]}`);
    }
  }
  assert.deepEqual(bare, [], 'a bare `node --test <files>` runs the machine\'s Node (20 here), which cannot run TypeScript: write npx node --test');
});

test('docs/production.md names only metrics /metrics exposes', async () => {
  const { registry } = await import('../src/http/plugins/metrics.ts');
  const exposed = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
  const named = new Set([...PRODUCTION.matchAll(/`((?:gantry|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!));
  assert.ok(named.size >= 8, `${named.size} metrics named`);
  // a histogram is exposed as its name; the page may name its _bucket series
  assert.deepEqual([...named].filter((n) => !exposed.has(n) && !exposed.has(n.replace(/_(bucket|sum|count)$/, ''))).sort(), [], 'metrics the page names that /metrics does not expose');
});
