// The arrows of docs/architecture.md, checked on the source: routes reach data only through
// domain services, and the store layer imports nothing above it. A new import that breaks a
// rule fails here with the file and the line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

function importsMatching(dir: string, bad: RegExp, opts: { allowTypeOnly?: boolean } = {}): string[] {
  const found: string[] = [];
  for (const file of sources(join(root, dir))) {
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
      const m = /^\s*(?:import|export)\b[^'"]*from\s+['"]([^'"]+)['"]/.exec(line);
      if (opts.allowTypeOnly && /^\s*import type\b/.test(line)) return;
      if (m && bad.test(m[1]!)) found.push(`${relative(root, file)}:${i + 1} ${m[1]}`);
    });
  }
  return found;
}

test('no route imports the store: routes call domain services', () => {
  assert.deepEqual(importsMatching('src/http/routes', /(^|\/)store\//), []);
});

// A store adapter may implement a port the domain declares (changes-pg.ts implements
// ChangeTransport): a type-only import, no code from above.
test('the store imports no code from above it (domain, gateway, http, jobs, drivers)', () => {
  assert.deepEqual(importsMatching('src/store', /^\.\.\/(domain|gateway|http|jobs|drivers|services)\b/, { allowTypeOnly: true }), []);
});
