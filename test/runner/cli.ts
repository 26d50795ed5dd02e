// The test command: `node test/runner/cli.ts [tier | file | folder …] [--workers N]
// [--isolation none|process] [--verbose]`. `npm test` is `… fast`; `npm run test:all` is
// `… all` (every tier, one after another). DEVELOPERS.md, "Tests in tiers".
import { availableParallelism } from 'node:os';
import { existsSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, TIER_NAMES, TIERS, filesOf, needsOwnProcess, testFiles, tierOf, type TierName } from './tiers.ts';
import { runFiles, type RunSummary } from './run.ts';

const USAGE = `usage: node test/runner/cli.ts [tier | file | folder …] [--workers N] [--isolation none|process] [--verbose]
tiers: ${TIER_NAMES.join(', ')}, all (every tier in turn)`;

interface Plan {
  label: string;
  files: string[];
  isolation: 'none' | 'process';
}

function plans(args: string[], isolation: string | undefined): Plan[] {
  const iso = (t: TierName) => (isolation as 'none' | 'process' | undefined) ?? TIERS[t].isolation;
  const tiers = args.length === 0 ? ['fast'] : args;
  const out: Plan[] = [];
  const loose: string[] = [];
  for (const a of tiers) {
    if (a === 'all') out.push(...TIER_NAMES.map((t) => ({ label: `${t} tier`, files: filesOf(t), isolation: iso(t) })));
    else if ((TIER_NAMES as readonly string[]).includes(a)) out.push({ label: `${a} tier`, files: filesOf(a as TierName), isolation: iso(a as TierName) });
    else {
      const p = resolve(a);
      if (!existsSync(p)) throw new Error(`${a}: no such tier, file or folder\n${USAGE}`);
      const rel = relative(ROOT, p);
      loose.push(...(statSync(p).isDirectory() ? testFiles(rel) : [rel]));
    }
  }
  // files named one by one run in their tier's isolation, a plan per tier
  for (const t of TIER_NAMES) {
    const files = loose.filter((f) => tierOf(f) === t);
    if (files.length) out.push({ label: `${t} files`, files, isolation: iso(t) });
  }
  return out;
}

function printSummary(s: RunSummary, out: (l: string) => void): void {
  const sum = (k: 'passed' | 'failed' | 'skipped') => s.results.reduce((n, r) => n + r[k], 0);
  const failedFiles = s.results.filter((r) => r.failed);
  const tests = sum('passed') + sum('failed') + sum('skipped');
  const cpu = s.cpuSeconds ? `, CPU ${s.cpuSeconds.toFixed(0)} s` : '';
  const rss = s.maxRssMb ? `, largest worker ${s.maxRssMb} MB` : '';
  out(`${s.label}: ${s.files} files, ${tests} tests: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped in ${s.wallSeconds.toFixed(1)} s${cpu}${rss}`);
  const skips = new Map<string, number>();
  for (const r of s.results) for (const [why, n] of Object.entries(r.skips)) skips.set(why, (skips.get(why) ?? 0) + n);
  for (const [why, n] of skips) out(`  skipped ×${n}: ${why}`);
  for (const w of s.warnings) out(`  warning: ${w}`);
  for (const r of failedFiles) for (const f of r.failures) out(`  failed: ${r.file} › ${f.name}`);
  if (failedFiles.length) out(`  one file alone: node --test ${failedFiles[0]!.file}`);
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { workers: { type: 'string' }, isolation: { type: 'string' }, verbose: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.isolation && !['none', 'process'].includes(values.isolation)) throw new Error(`--isolation must be none or process\n${USAGE}`);
  const workers = Number(values.workers ?? process.env.GANTRY_TEST_WORKERS ?? availableParallelism());
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`--workers must be a whole number ≥ 1\n${USAGE}`);
  const fileTimeoutMs = Number(process.env.GANTRY_TEST_FILE_TIMEOUT_S ?? 900) * 1000;
  const out = (l: string) => process.stdout.write(`${l}\n`);
  const summaries: RunSummary[] = [];
  const named = positionals.filter((a) => a !== 'all' && !(TIER_NAMES as readonly string[]).includes(a));
  const tiersToo = positionals.filter((a) => !named.includes(a));
  // `fast a.test.ts` runs the whole fast tier and then a.test.ts: said first, so nobody waits minutes for one file
  if (named.length && tiersToo.length) out(`note: ${tiersToo.join(', ')} runs every file of that tier, then the files named; to run only those, leave out ${tiersToo.join(', ')}`);
  for (const p of plans(positionals, values.isolation)) {
    if (p.label === 'services tier' && !process.env.TEST_DATABASE_URL && !process.env.TEST_REDIS_URL) {
      out('services tier: TEST_DATABASE_URL and TEST_REDIS_URL are not set: only its own files run (they skip what needs the services); DEVELOPERS.md says how to set them');
    }
    out(`${p.label}: ${p.files.length} files, ${workers} workers${p.isolation === 'none' ? ', files in shared worker processes' : ', a process per file'} (${TIERS[tierOf(p.files[0] ?? '')].needs})`);
    const s = await runFiles({ label: p.label, files: p.files, isolation: p.isolation, ownProcess: needsOwnProcess, workers, fileTimeoutMs, verbose: values.verbose, out });
    printSummary(s, out);
    summaries.push(s);
  }
  if (summaries.length > 1) {
    const failed = summaries.reduce((n, s) => n + s.results.filter((r) => r.failed).length, 0);
    out(`all: ${summaries.map((s) => `${s.label} ${s.wallSeconds.toFixed(0)} s`).join(', ')}; ${failed} files failed`);
  }
  return summaries.some((s) => s.results.some((r) => r.failed) || s.results.length < s.files) ? 1 : 0;
}

main().then((code) => { process.exitCode = code; }, (e) => {
  process.stderr.write(`${(e as Error).message}\n`);
  process.exitCode = 2;
});

