// A 200 MB upload streams: through the HTTP route, the multipart parser, the JSONL check and
// the blob store to disk without the server's RSS growing by more than 50 MB. The client is
// another process (its buffers are not the server's memory) that generates the body as it
// sends it, over a real socket.
// Without lib/read-buffers.ts the peak was +60 to +68 MB: nothing is retained, but the
// socket-read buffers are freed only at V8's next GC (it collects for external memory after
// +64 MB). With a scavenge every 8 MB read it is about +27 MB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { text } from 'node:stream/consumers';
import { buildTestApp } from '../../../../test/helpers/app.ts';
import { createTeam } from '../../../../test/helpers/factories.ts';

const CLIENT = new URL('../../../../test/helpers/jsonl-upload-client.ts', import.meta.url).pathname;
const LINES = 50_000;
const LINE_BYTES = 4000; // 50,000 × 4,000 = 200,000,000 bytes: the default limits, both at once

async function upload(url: URL, key: string, lines: number): Promise<{ status: number; body: string }> {
  const child = spawn(process.execPath, [CLIENT, url.href, key, String(lines), String(LINE_BYTES)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [out, code] = await Promise.all([text(child.stdout), new Promise((resolve) => child.on('close', resolve))]);
  assert.equal(code, 0, `the upload client exited with ${code}`);
  return JSON.parse(out);
}

test('a 200 MB upload through POST /openai/v1/files raises the RSS by less than 50 MB', { timeout: 300_000 }, async () => {
  const t = await buildTestApp();
  try {
    const url = new URL('/openai/v1/files', await t.app.listen({ host: '127.0.0.1', port: 0 }));
    const team = await createTeam(t.app, t.creds.adminToken);
    // warm up the same path (parser, blob store, queries) so the baseline holds their code and caches
    assert.equal((await upload(url, team.owner.apiKey, 100)).status, 200);
    (globalThis as { gc?: () => void }).gc?.();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 5);
    let res: { status: number; body: string };
    try {
      res = await upload(url, team.owner.apiKey, LINES);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage.rss());
    assert.equal(res.status, 200, res.body);
    const file = JSON.parse(res.body);
    assert.equal(file.bytes, LINES * LINE_BYTES);
    assert.equal(file.metadata.total_requests, LINES);
    const grewMb = (peak - baseline) / 1e6;
    console.log(`200 MB upload: server RSS baseline ${(baseline / 1e6).toFixed(1)} MB, peak ${(peak / 1e6).toFixed(1)} MB, +${grewMb.toFixed(1)} MB`);
    assert.ok(grewMb < 50, `RSS grew by ${grewMb.toFixed(1)} MB`);
  } finally {
    await t.close();
  }
});
