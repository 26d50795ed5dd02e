// An upload whose process died mid-stream leaves its record at status 0 (listed, no
// download_url) and maybe bytes under its key: media.tasks.sweep removes both once the record
// is GANTRY_MEDIA_UPLOAD_STALE_HOURS old, and leaves younger uploads and finished ones alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { as } from '../../../../test/helpers/http.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';
import { uploadModel } from '../../../../test/helpers/media.ts';
import { insertMediaModel } from '../../../store/media.ts';

async function* bytes(s: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(s);
}

test('a stranded upload (status 0, its process gone) is removed with its bytes by the sweep after the bound', async () => {
  const t = await buildTestApp({ env: { GANTRY_MEDIA_UPLOAD_STALE_HOURS: '2' } });
  try {
    const team = await createTeam(t.app, t.creds.adminToken);
    const key = team.owner.apiKey;
    const done = await uploadModel(t, key, { type: 'lora', sd_name: 'finished.safetensors' });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    // what a process that died after writing the row and part of the bytes leaves behind
    const strand = async (sdName: string) => {
      const now = t.clock.nowMs();
      const row = await insertMediaModel(t.store.db, {
        teamId: team.userId, name: sdName, sdName, sdNameInApi: sdName, type: 'checkpoint', search: sdName, source: 'uploading',
        status: 0, blobKey: `media/models/stranded-${sdName}`, createdAtMs: now, updatedAtMs: now,
      });
      await t.services.blobs.store.put(row.blobKey, bytes('the first half of the weights'));
      return row;
    };
    const old = await strand('died.safetensors');
    t.clock.advance(3_600_000);
    const young = await strand('young.safetensors');
    const listed = async () => (await as(t.app, key).get('/v3/model', { 'filter.visibility': 'private' })).body.models
      .map((m: any) => [m.sd_name, m.status, m.download_url === '' ? 'no link' : 'link']).sort();
    assert.deepEqual(await listed(), [['died.safetensors', 0, 'no link'], ['finished.safetensors', 1, 'link'], ['young.safetensors', 0, 'no link']]);

    // before the bound, nothing goes
    t.clock.advance(3_600_000 - 1000);
    await t.services.jobs.runNow('media.tasks.sweep');
    assert.equal((await listed()).length, 3);
    assert.ok(await t.services.blobs.store.stat(old.blobKey));

    t.clock.advance(2000);
    await t.services.jobs.runNow('media.tasks.sweep');
    assert.deepEqual(await listed(), [['finished.safetensors', 1, 'link'], ['young.safetensors', 0, 'no link']]);
    assert.equal(await t.services.blobs.store.stat(old.blobKey), undefined, 'its partial bytes are gone with it');
    assert.ok(await t.services.blobs.store.stat(young.blobKey));
    // the name is free again for the team
    assert.equal((await uploadModel(t, key, { type: 'checkpoint', sd_name: 'died.safetensors' })).status, 200);

    // a finished upload is never removed, however old
    t.clock.advance(30 * 86_400_000);
    await t.services.jobs.runNow('media.tasks.sweep');
    assert.deepEqual(await listed(), [['died.safetensors', 1, 'link'], ['finished.safetensors', 1, 'link']]);
  } finally {
    await t.close();
  }
});
