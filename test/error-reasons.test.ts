// The domain and the gateway raise their failures through an errors.ts (docs/architecture.md,
// "Errors"): each domain area's, the domain root's (roles, authentication) and the gateway's.
// Anywhere else in src/domain and src/gateway an AppError is never constructed, nor a reason
// named to lib/errors.ts's invalid() or notFound(); each errors.ts declares the reasons it
// raises (one `<AREA>_REASONS`), every one of them in the one table (lib/errors.ts), which
// alone says its status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REASON_STATUS } from '../src/lib/errors.ts';

const root = join(import.meta.dirname, '..');
const RAISERS = ['src/domain', 'src/gateway'].map((dir) => join(root, dir));
const REASONS = new Set(Object.keys(REASON_STATUS));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

const isErrors = (file: string) => file.endsWith('/errors.ts');

/** What a file outside errors.ts does that only errors.ts may: `file:line what`. */
function bareErrors(rel: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (/\bnew AppError\(/.test(line)) found.push(`${rel}:${i + 1} new AppError(`);
    const named = /\b(?:invalid|notFound)\(.*'([A-Z][A-Z_]+)'/.exec(line);
    if (named && REASONS.has(named[1]!)) found.push(`${rel}:${i + 1} names ${named[1]}`);
  });
  return found;
}

test('domain and gateway code outside an errors.ts constructs no AppError and names no reason', () => {
  const files = RAISERS.flatMap(sources).filter((f) => !isErrors(f));
  assert.ok(files.length > 100, 'the whole domain and gateway are read');
  assert.deepEqual(files.flatMap((f) => bareErrors(relative(root, f), readFileSync(f, 'utf8'))), []);
});

test('the check sees a bare AppError and a reason handed to invalid() or notFound()', () => {
  const planted = [
    "throw new AppError('CONFLICT', 'taken', { field: 'name' });",
    "if (!row) throw notFound('file', id, 'FILE_NOT_FOUND');",
    "throw invalid('purpose', 'must be batch', 'INVALID_REQUEST_BODY');",
    "throw invalid('name', 'must be 1-255 characters');", // the default reason: allowed
    "if (err.reason === 'UNAUTHORIZED') return;", // reading a reason: allowed
  ].join('\n');
  assert.deepEqual(bareErrors('x.ts', planted), ['x.ts:1 new AppError(', 'x.ts:2 names FILE_NOT_FOUND', 'x.ts:3 names INVALID_REQUEST_BODY']);
});

test('every errors.ts of the domain and the gateway declares the reasons it raises, each one of the one table', async () => {
  const files = RAISERS.flatMap(sources).filter(isErrors);
  assert.ok(files.length >= 17, `an errors.ts per area that raises errors (${files.length})`);
  for (const file of files) {
    const rel = relative(root, file);
    const lists = Object.entries(await import(file) as Record<string, unknown>).filter(([name]) => name.endsWith('_REASONS'));
    assert.equal(lists.length, 1, `${rel} declares its reasons in one <AREA>_REASONS`);
    const [name, declared] = lists[0] as [string, string[]];
    for (const r of declared) assert.ok(REASONS.has(r), `${rel}: ${name} lists ${r}, which is not in the one table (lib/errors.ts)`);
    for (const [, r] of readFileSync(file, 'utf8').matchAll(/'([A-Z][A-Z_]+)'/g)) {
      assert.ok(REASONS.has(r!), `${rel} raises ${r}, which is not in the one table (lib/errors.ts)`);
      assert.ok(declared.includes(r!), `${rel} raises ${r} without declaring it in ${name}`);
    }
  }
});
