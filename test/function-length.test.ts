// No function of the source is longer than 80 lines (docs/architecture.md, "Calling the
// domain": about 40, a long operation being a sequence of named steps). Read by TypeScript's
// parser (test/helpers/function-lengths.ts) over src/**/*.ts and the console's modules, test
// files aside; the check is shown to see a function planted one line too long.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { sourceFiles } from './helpers/layers.ts';
import { functionLengths } from './helpers/function-lengths.ts';

const root = join(import.meta.dirname, '..');
const MAX_LINES = 80;

const over = (found: ReturnType<typeof functionLengths>) => found.filter((f) => f.lines > MAX_LINES).map((f) => `${f.path}:${f.line} ${f.name}: ${f.lines} lines`);

test(`no function of src/ is longer than ${MAX_LINES} lines`, () => {
  const files = sourceFiles(root).map((f) => f.path).filter((p) => !p.endsWith('.test.ts'));
  const found = functionLengths(root, files);
  assert.ok(files.length > 500 && found.length > 3000, `the whole source is read (${files.length} files, ${found.length} functions)`);
  assert.deepEqual(over(found), []);
});

test('the check measures each kind of function, nested ones too, and sees one a line too long', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = '}' + \`\${"{"}\`; // {`).join('\n');
  const planted = [
    '/** a doc comment is not counted */',
    `export function declared(): void {\n${body(78)}\n}`, // 80 lines: allowed
    `const arrow = async () => {\n${body(79)}\n};`, // 81
    `class K {\n  method(): void {\n${body(1)}\n    const inner = function named() {\n${body(79)}\n    };\n  }\n}`,
  ].join('\n');
  const js = `// @ts-check\nexport function Page() {\n${body(80)}\n}\n`;
  const found = functionLengths(root, ['src/planted.ts', 'src/console/planted.js'], new Map([['src/planted.ts', planted], ['src/console/planted.js', js]]));
  assert.deepEqual(over(found), [
    'src/planted.ts:82 arrow: 81 lines',
    'src/planted.ts:164 method: 84 lines',
    'src/planted.ts:166 named: 81 lines',
    'src/console/planted.js:2 Page: 82 lines',
  ]);
  assert.deepEqual(found.filter((f) => f.name === 'declared').map((f) => [f.line, f.lines]), [[2, 80]]);
});
