// The entry on the machine's older Node: `npx gantry` in the project runs the pinned Node 24
// without a word from npm (package.json's `engines` once made every npx print ten EBADENGINE
// lines, npm checking the project against the Node npm itself runs on), and bin/gantry.mjs
// run by a Node older than 24 says in one line what it needs and how to run it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const OLD_NODE = '/usr/bin/node';
const OLD_NPX = '/usr/bin/npx';

function oldNodeVersion(): string | undefined {
  if (!existsSync(OLD_NODE)) return undefined;
  const v = execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  return Number(v.split('.')[0]) < 24 ? v : undefined;
}
const old = oldNodeVersion();
const skip = old ? false : `needs a Node older than 24 at ${OLD_NODE} (the machine's own): none here`;

test('bin/gantry.mjs on a Node older than 24 says what it needs, in one line, exit 1', { skip }, () => {
  const r = spawnSync(OLD_NODE, [join(ROOT, 'bin', 'gantry.mjs'), 'help'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin' } });
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, new RegExp(`^gantry needs Node.js 24 or newer; this is v${old!.replaceAll('.', '\\.')} \\(${OLD_NODE}\\)\\. Run it with the Node the project pins: npx gantry`));
  assert.equal(r.stderr.trimEnd().split('\n').length, 1);
});

test('npx gantry on the machine\'s older Node runs the pinned Node with no EBADENGINE warning', { skip: skip || (existsSync(OLD_NPX) ? false : `needs ${OLD_NPX}`), timeout: 120_000 }, () => {
  const r = spawnSync(OLD_NPX, ['--offline', 'gantry', 'help'], { cwd: ROOT, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^usage: gantry <command>/);
  assert.doesNotMatch(r.stderr, /EBADENGINE/);
  assert.equal(r.stderr.trim(), '', 'npm says nothing');
});
