// `gantry admin media list` against a listening Gantry: every public record (all pages, a
// line each, or JSON), the filters as flags, and the command wired through bin/gantry.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { buildTestApp } from '../../test/helpers/app.ts';
import { createTeam } from '../../test/helpers/factories.ts';
import { importModel, uploadModel } from '../../test/helpers/media.ts';
import { runMediaList } from './media-list.ts';

test('media list: every public record over several pages, filters as flags, JSON, and through the CLI', async () => {
  const t = await buildTestApp();
  try {
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const team = await createTeam(t.app, t.creds.adminToken);
    for (let i = 0; i < 103; i++) await importModel(t, { type: i % 2 ? 'lora' : 'vae', sd_name: `m${String(i).padStart(3, '0')}.safetensors` });
    await importModel(t, { type: 'checkpoint', sd_name: 'xl.safetensors', is_sdxl: true, base_model_type: 'Inpainting' }, Buffer.alloc(3 * 1024 * 1024));
    assert.equal((await uploadModel(t, team.owner.apiKey, { type: 'lora', sd_name: 'private.safetensors' })).status, 200);

    const lines: string[] = [];
    assert.equal(await runMediaList({}, base, t.creds.adminToken, (l) => lines.push(l)), 0);
    assert.equal(lines.length, 104, 'all pages (the API gives 100 a page), no team upload');
    assert.ok(!lines.some((l) => l.includes('private')));
    assert.match(lines.at(-1)!, /^\s*\d+ {2}checkpoint {8}xl\.safetensors {2}civitai {2}3\.0 MiB {2}[0-9a-f]{12} {2}sdxl,inpainting$/);

    lines.length = 0;
    assert.equal(await runMediaList({ type: 'checkpoint', json: 'true' }, base, t.creds.adminToken, (l) => lines.push(l)), 0);
    const json = JSON.parse(lines.join('\n'));
    assert.deepEqual(json.map((m: any) => [m.sd_name, m.bytes]), [['xl.safetensors', 3 * 1024 * 1024]]);

    lines.length = 0;
    assert.equal(await runMediaList({ type: 'nonsense' }, base, t.creds.adminToken, (l) => lines.push(l)), 1);
    assert.match(lines[0]!, /filter\.types/);

    const run = promisify(execFile);
    const root = new URL('../..', import.meta.url).pathname;
    const cli = await run(process.execPath, ['bin/gantry.mjs', 'admin', 'media', 'list', '--query', 'm10'], {
      cwd: root, env: { ...process.env, GANTRY_URL: base, GANTRY_ADMIN_TOKEN: t.creds.adminToken },
    });
    assert.deepEqual(cli.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/)[2]), ['m100.safetensors', 'm101', 'm102.safetensors'], 'a LoRA is named without its extension');
  } finally {
    await t.close();
  }
});
