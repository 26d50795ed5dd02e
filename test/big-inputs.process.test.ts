// The check of the "big and long inputs" issue: while four 8 MB prompts arrive one after
// another at a real Gantry process, other requests (a steady stream of GET /healthz) are not
// held up. The prompts go to a simulator model with a 4M-token context, so each is parsed,
// measured, tokenized in full, hashed for its seed and billed: the heaviest path.
//
// What is asserted, and why not the absolute "p99 < 50 ms" (that is the bench's check:
// node bench/big-inputs/run.ts, results in bench/README.md): the suite runs two test files at
// once on two cores, often beside other work, and a probe then also waits for a CPU however
// little the server blocks; on a machine short of CPU the probes' queue grows without end
// (seen: a median of 2.3 s while the server's own work never held the loop 20 ms). So:
//  - always: the server's own work never held its event loop for 50 ms of main-thread CPU
//    (bench/big-inputs/loop-stalls.ts; before the fix single stalls held 130-190 ms), plus
//    what the one step that no slicing splits costs on this machine, measured here: the parsed
//    prompt arrives from the JSON parser's thread as one string, deserialized in one turn, a
//    copy of 8 MB into fresh memory: ~25 ms on a slow machine where the server's longest turn
//    was 49-73 ms, a few ms on the machine the 50 ms was set on. (The body itself is no longer
//    joined in one turn: src/http/json-body.ts copies it into blocks as it arrives.)
//  - when the server never waited 50 ms for a core (so latency means something): the median
//    /healthz while the prompts arrive is within 50 ms of the p99 without them (before the
//    fix the median was 200-700 ms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { startServer } from './helpers/server.ts';
import { bigChatBody, probeHealthz } from '../bench/big-inputs/probe.ts';

const STALLS = fileURLToPath(new URL('../bench/big-inputs/loop-stalls.ts', import.meta.url));

/** Main-thread CPU ms of the step no slicing splits (the header says which), the median of 5. */
function unsplittableMs(): number {
  const message = serialize({ content: 'x'.repeat(8 * 1024 * 1024) });
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const before = process.threadCpuUsage();
    deserialize(message);
    const used = process.threadCpuUsage(before);
    runs.push((used.user + used.system) / 1000);
  }
  return runs.sort((a, b) => a - b)[2]!;
}

test('while four 8 MB prompts arrive, the server keeps answering /healthz', { timeout: 120_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-big-'));
  const server = await startServer({
    GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000', GANTRY_SEED_VOUCHER_UNITS: '1000000000000',
    NODE_OPTIONS: `--import=${STALLS}`,
  });
  try {
    const { adminToken, apiKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const model = await fetch(`${server.url}/admin/v1/models`, {
      method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'acme/long', title: 'Long', contextSize: 4_000_000, inputTokenPricePerM: 1, outputTokenPricePerM: 1, status: 'available', upstream: 'sim' }),
    });
    assert.equal(model.status, 200, await model.text());
    const stalls = () => new Promise<{ maxMs: number; maxCpuMs: number; maxWaitMs: number }>((resolve) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d;
        const m = /\{"stalls":(\{[^}]*\})\}/.exec(out);
        if (!m) return;
        server.child.stdout!.off('data', onData);
        resolve(JSON.parse(m[1]!));
      };
      server.child.stdout!.on('data', onData);
      server.child.kill('SIGUSR2');
    });
    const bodies = [0, 1, 2, 3].map((i) => bigChatBody('acme/long', 8 * 1024 * 1024 - 1024, i));
    await stalls(); // start counting here
    const r = await probeHealthz({ url: server.url, apiKey, bodies, baselineMs: 1500 });
    const s = await stalls();
    t.diagnostic(`/healthz alone p50 ${r.baseline.p50Ms.toFixed(1)} p99 ${r.baseline.p99Ms.toFixed(1)} ms; while 8 MB prompts arrived p50 ${r.loaded.p50Ms.toFixed(1)} p99 ${r.loaded.p99Ms.toFixed(1)} max ${r.loaded.maxMs.toFixed(1)} ms (${r.loaded.n} probes); ` +
      `prompts answered in ${r.answers.map((a) => a.ms.toFixed(0)).join(' / ')} ms; longest server stall ${s.maxMs} ms, most main-thread CPU in one ${s.maxCpuMs} ms, longest wait for a core in one ${s.maxWaitMs} ms`);
    for (const a of r.answers) assert.equal(a.status, 200, a.head);
    const steps = unsplittableMs();
    t.diagnostic(`an 8 MB string's deserialization on this machine: ${steps.toFixed(1)} ms of CPU`);
    assert.ok(s.maxCpuMs < 50 + steps, `the server's own work held its event loop for ${s.maxCpuMs} ms of CPU (allowed: 50 + ${steps.toFixed(1)})`);
    if (s.maxWaitMs < 50) {
      assert.ok(r.loaded.p50Ms < r.baseline.p99Ms + 50, `median /healthz ${r.loaded.p50Ms.toFixed(1)} ms while the prompts arrived, p99 ${r.baseline.p99Ms.toFixed(1)} ms without them`);
    } else {
      t.diagnostic(`latency not judged: the server waited up to ${s.maxWaitMs} ms for a core (a busy machine)`);
    }
  } finally {
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
