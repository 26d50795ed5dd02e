// `gantry admin …` (an HTTP client) starts with only what it needs: config.ts (with the
// drivers' settings it validates), credentials.ts and admin.ts of the project, and none of the
// store's or the server's modules, nor any package (bench/README.md, "The CLI's start"). Through the
// real process, with a hook that records every module it loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildTestApp } from '../../test/helpers/app.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

test('gantry admin teams list loads none of the store, the server or any package', async () => {
  const t = await buildTestApp();
  const dir = mkdtempSync(join(tmpdir(), 'gantry-admin-start-'));
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    const record = join(dir, 'loaded.json');
    const hook = join(dir, 'hook.mjs');
    writeFileSync(hook, `import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const loaded = [];
registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
process.on('exit', () => writeFileSync(${JSON.stringify(record)}, JSON.stringify(loaded)));
`);
    const out = await promisify(execFile)(process.execPath, ['--import', hook, 'bin/gantry.mjs', 'admin', 'teams', 'list'], {
      cwd: ROOT, env: { ...process.env, GANTRY_URL: url, GANTRY_ADMIN_TOKEN: t.creds.adminToken },
    });
    assert.ok(JSON.parse(out.stdout).teams.length >= 1, 'the call was made');
    const loaded = JSON.parse(readFileSync(record, 'utf8')) as string[];
    const project = loaded.filter((u) => u.startsWith(`file://${ROOT}src/`)).map((u) => u.slice(`file://${ROOT}src/`.length)).sort();
    assert.deepEqual(project.filter((p) => /^(store|domain|http|gateway|jobs|adapters)\//.test(p) && p !== 'store/pglite-settings.ts'), [],
      `no store, domain or server module: ${project.join(' ')}`);
    assert.ok(project.includes('cli/admin.ts') && project.includes('config.ts'));
    assert.ok(project.length <= 30, `${project.length} project modules: ${project.join(' ')}`);
    assert.deepEqual(loaded.filter((u) => u.includes('/node_modules/')), [], 'no package');
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
