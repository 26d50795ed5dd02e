// A 200 MB upload streams: through the HTTP route, the multipart parser, the JSONL check and
// the blob store to disk without the server's RSS growing by more than 50 MB. The server is a
// real `gantry serve` process, as an operator runs it (its allocator and V8 flags set by its
// re-execution, lib/malloc-tuning.ts); the client is another process (its buffers are not the
// server's memory) that generates the body as it sends it, over a real socket.
// Measured in this test's process before (V8's default young generation), the peak was +60 to
// +68 MB without lib/read-buffers.ts: nothing is retained, but the socket-read buffers are
// freed only at V8's next GC (it collects for external memory after +64 MB); with a scavenge
// every 8 MB read, about +27 MB. In the server as it runs, +14 to +15 MB with a 16 MB
// semi-space (with the scavenges and without them), +9 to +11 MB with today's 8 MB
// (lib/malloc-tuning.ts). Buffering the upload would be +200 MB.
// The baseline is read once the server has gone quiet: its RSS also holds whatever V8's
// optimizing compiler is doing on its background threads (PGlite's WebAssembly and the hot
// JavaScript, tiered up after the start and the warm-up), hundreds of MB at a time on a slow
// machine. Seen before this wait (and in-process, without the server's tuning): +210 to +380
// MB around an upload whose JS heap grew by 12 MB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { serverQuiet, startServer } from '../../../../test/helpers/server.ts';
import { rssBytes } from '../../../../bench/proc.ts';

const CLIENT = new URL('../../../../test/helpers/jsonl-upload-client.ts', import.meta.url).pathname;
const LINES = 50_000;
const LINE_BYTES = 4000; // 50,000 × 4,000 = 200,000,000 bytes: the default limits, both at once

async function upload(url: URL, key: string, lines: number): Promise<{ status: number; body: string }> {
  const child = spawn(process.execPath, [CLIENT, url.href, key, String(lines), String(LINE_BYTES)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [out, code] = await Promise.all([text(child.stdout), new Promise((resolve) => child.on('close', resolve))]);
  assert.equal(code, 0, `the upload client exited with ${code}`);
  return JSON.parse(out);
}

test('a 200 MB upload through POST /openai/v1/files raises the RSS by less than 50 MB', { timeout: 300_000, skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-upload-'));
  const server = await startServer({ GANTRY_DATA_DIR: dataDir });
  try {
    const pid = server.child.pid!;
    const { apiKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const url = new URL('/openai/v1/files', server.url);
    // warm up the same path (parser, blob store, queries) so the baseline holds their code and caches
    assert.equal((await upload(url, apiKey, 100)).status, 200);
    await serverQuiet(pid);
    const baseline = rssBytes(pid);
    let peak = baseline;
    const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(pid)); }, 5);
    let res: { status: number; body: string };
    try {
      res = await upload(url, apiKey, LINES);
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssBytes(pid));
    assert.equal(res.status, 200, res.body);
    const file = JSON.parse(res.body);
    assert.equal(file.bytes, LINES * LINE_BYTES);
    assert.equal(file.metadata.total_requests, LINES);
    const grewMb = (peak - baseline) / 1e6;
    console.log(`200 MB upload: server RSS baseline ${(baseline / 1e6).toFixed(1)} MB, peak ${(peak / 1e6).toFixed(1)} MB, +${grewMb.toFixed(1)} MB`);
    assert.ok(grewMb < 50, `RSS grew by ${grewMb.toFixed(1)} MB`);
  } finally {
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
