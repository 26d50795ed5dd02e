// The test tiers: a test file's name says what it needs (DEVELOPERS.md, "Tests in tiers").
// `npm test` is the fast tier (Node and the embedded store only); every other tier has a
// script of its own and `npm run test:all` runs them all, as CI does.
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');

export const TIER_NAMES = ['fast', 'process', 'engines', 'browser', 'image', 'services'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface Tier {
  /** what a file of this tier needs beyond Node and the embedded store */
  needs: string;
  /**
   * `none`: files run one after another in a few long-lived worker processes, so the module
   * graph is imported once per worker instead of once per file. `process`: a process per
   * file, as `node --test` runs them: files that start engines, browsers or servers take
   * long enough that a process is nothing beside them, and they keep the isolation they
   * were written for.
   */
  isolation: 'none' | 'process';
}

export const TIERS: Record<TierName, Tier> = {
  fast: { needs: 'nothing: Node and the embedded store', isolation: 'none' },
  process: { needs: 'nothing to install: they start Gantry server or CLI processes (kill -9, replicas, the CLI)', isolation: 'process' },
  engines: { needs: 'root, dockerd, Podman, runc and a static busybox (apt-get install docker.io podman runc busybox-static)', isolation: 'process' },
  browser: { needs: 'Chromium (apt-get install chromium)', isolation: 'process' },
  image: { needs: 'Podman, debootstrap and docker-compose (apt-get install podman debootstrap docker-compose)', isolation: 'process' },
  // the fast tier's files it runs again on PostgreSQL and Redis share workers as in the fast
  // tier; its own files and other tiers' get a process each (needsOwnProcess)
  services: { needs: 'PostgreSQL and Redis: TEST_DATABASE_URL and TEST_REDIS_URL (and the servers some files start of their own)', isolation: 'none' },
};

/** The tier a test file belongs to, by its name: `x.engines.test.ts` is an engines test. */
export function tierOf(file: string): TierName {
  const m = /\.(process|engines|browser|image|services)\.test\.ts$/.exec(file);
  return (m?.[1] as TierName | undefined) ?? 'fast';
}

const SEARCHED = ['src', 'test', 'bench', 'bin'];

/** Every test file of the project, relative to its root. */
export function testFiles(dir = ''): string[] {
  const roots = dir ? [dir] : SEARCHED;
  return roots.flatMap((d) => {
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(join(ROOT, d), { withFileTypes: true });
    } catch {
      // a folder this checkout does not have
    }
    return entries.flatMap((e) => {
      const p = join(d, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(p);
      return e.name.endsWith('.test.ts') ? [p] : [];
    });
  }).sort();
}

const SERVICES = /\b(TEST_DATABASE_URL|TEST_REDIS_URL)\b/;

/** Relative imports of a file that stay inside the tests' own code (helpers, other test files). */
function localImports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g)) {
    const target = relative(ROOT, resolve(dirname(join(ROOT, file)), m[1]!));
    if (target.startsWith('test/') || target.endsWith('.test.ts')) out.push(target);
  }
  return out;
}

/**
 * Whether a file runs against PostgreSQL and Redis when TEST_DATABASE_URL / TEST_REDIS_URL
 * are set: it reads them, or imports (through test helpers, at any depth) a helper that does
 * (test/helpers/app.ts: every buildTestApp store). Other files run the same code whatever
 * those variables say, so the services pass need not run them again.
 */
export function readsServices(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  let text: string;
  try {
    text = readFileSync(join(ROOT, file), 'utf8');
  } catch {
    return false;
  }
  return SERVICES.test(text) || localImports(file).some((f) => readsServices(f, seen));
}

/**
 * The files of a tier. The services tier is its own files, and, when the services are
 * configured, every other file that reads them (run again, this time against PostgreSQL
 * and Redis).
 */
export function filesOf(tier: TierName, env: NodeJS.ProcessEnv = process.env, all = testFiles()): string[] {
  if (tier !== 'services') return all.filter((f) => tierOf(f) === tier);
  const configured = Boolean(env.TEST_DATABASE_URL || env.TEST_REDIS_URL);
  return all.filter((f) => tierOf(f) === 'services' || (configured && readsServices(f)));
}

/**
 * A fast-tier file that asserts on the process itself (which modules it loaded, its memory)
 * says so by a line of its own, `// Runs in a process of its own (test/runner): <why>`, and
 * gets one: in a shared worker, other files would have loaded what it checks is not.
 */
export const OWN_PROCESS = /^\/\/ Runs in a process of its own \(test\/runner\)/m;

export function needsOwnProcess(file: string): boolean {
  // only the fast tier's files are written for a shared worker (DEVELOPERS.md, "Tests in tiers")
  if (tierOf(file) !== 'fast') return true;
  try {
    return OWN_PROCESS.test(readFileSync(join(ROOT, file), 'utf8'));
  } catch {
    return false;
  }
}
