// Every chart of the console loads uPlot through ui.js's drawChart, which ignores a module
// that arrives after its chart was unmounted (test/console-charts.browser.test.ts shows it on
// the usage page): a page importing uPlot itself would bring back the error on the next page
// (`Cannot read properties of null (reading 'clientWidth')`, issue 45).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CONSOLE = new URL('../src/console/', import.meta.url).pathname;

test('only ui.js imports uPlot; the usage, instance and endpoint charts draw through drawChart', () => {
  const files = ['', 'pages/'].flatMap((d) => readdirSync(join(CONSOLE, d)).filter((f) => f.endsWith('.js')).map((f) => `${d}${f}`));
  // code only: JSDoc names uPlot's types with import('uplot') too
  const code = (f: string) => readFileSync(join(CONSOLE, f), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const importers = files.filter((f) => /import\(\s*['"]uplot['"]\s*\)|from\s+['"]uplot['"]/.test(code(f)));
  assert.deepEqual(importers, ['ui.js']);
  for (const page of ['pages/usage.js', 'pages/instance-metrics.js', 'pages/endpoint-metrics.js']) {
    assert.match(readFileSync(join(CONSOLE, page), 'utf8'), /return drawChart\(ref, \(UPlot, el\) =>/, page);
  }
});
