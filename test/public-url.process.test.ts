// A server started on port 0 (any free port) learns its address only once listening: the
// links it signs (blob downloads, task results) and the URLs it shows must name that address,
// not port 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './helpers/server.ts';

test('on port 0, signed links name the address the server listens on, and they work', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-port0-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir, GANTRY_RUN_JOBS: 'false' });
  try {
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const res = await fetch(`${server.url}/v3/model?pagination.limit=1`, { headers: { authorization: `Bearer ${creds.apiKey}` } });
    const body = await res.json() as { models: Array<{ download_url: string }> };
    assert.equal(res.status, 200, JSON.stringify(body));
    const link = body.models[0]!.download_url;
    assert.ok(link.startsWith(`${server.url}/blobs/`), `${link} is not under ${server.url}`);
    assert.equal((await fetch(link)).status, 200);
  } finally {
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
