// `npm install` leaves package-lock.json as it was (issue 45): npm rewrites the lock's root
// entry from package.json on every install, so a field changed in one and not the other is
// a change each install makes (package.json lost `engines` and the lock kept it). The root
// entry must say what npm would write: these fields as package.json has them, and
// hasInstallScript exactly when an install script runs. (Checked by `npm install
// --package-lock-only --ignore-scripts` in a copy: "up to date", the lock byte for byte.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));

/** The root entry's fields npm copies from package.json (@npmcli/arborist's lockfile root). */
const COPIED = ['name', 'version', 'license', 'dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies',
  'peerDependenciesMeta', 'bin', 'engines', 'os', 'cpu', 'funding', 'workspaces'] as const;

test('package-lock.json\'s root entry says what npm would write from package.json', () => {
  const pkg = read('package.json');
  const lock = read('package-lock.json');
  const root = lock.packages[''];
  for (const field of COPIED) assert.deepEqual(root[field], pkg[field], `${field}: the lock and package.json agree`);
  const installScript = ['preinstall', 'install', 'postinstall'].some((s) => pkg.scripts?.[s] !== undefined);
  assert.equal(root.hasInstallScript, installScript ? true : undefined, 'hasInstallScript');
  const known = new Set([...COPIED, 'hasInstallScript']);
  assert.deepEqual(Object.keys(root).filter((k) => !known.has(k as never)), [], 'no field npm would drop');
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    assert.ok(lock.packages[`node_modules/${name}`], `${name} is locked`);
  }
});
