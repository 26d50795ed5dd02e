// The test files of the real-services pass (CI's second `node --test`, `npm run test:services`):
// those that run against PostgreSQL and Redis when TEST_DATABASE_URL / TEST_REDIS_URL are set,
// i.e. that read them, or import (through test helpers, at any depth) a helper that does
// (test/helpers/app.ts: every buildTestApp store; test/faults/cluster.ts). The others run the
// same code whatever those variables say (pure logic, the embedded store's own files and
// processes, the browser), so the first pass has run them already.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const SERVICES = /\b(TEST_DATABASE_URL|TEST_REDIS_URL)\b/;

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

/** Relative imports of a file that stay outside src/ but for test files' own helpers (what test code pulls in). */
function localImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+\.ts)['"]/g)) {
    const target = relative(root, resolve(dirname(join(root, file)), m[1]!));
    if (existsSync(join(root, target)) && (target.startsWith('test/') || target.endsWith('.test.ts'))) out.push(target);
  }
  return out;
}

const reads = new Map<string, boolean>();
function readsServices(file: string, seen = new Set<string>()): boolean {
  const known = reads.get(file);
  if (known !== undefined) return known;
  if (seen.has(file)) return false;
  seen.add(file);
  const found = SERVICES.test(readFileSync(join(root, file), 'utf8')) || localImports(file).some((f) => readsServices(f, seen));
  reads.set(file, found);
  return found;
}

const selected = [...testFiles('src'), ...testFiles('test')].filter((f) => readsServices(f)).sort();
process.stdout.write(`${selected.join('\n')}\n`);
