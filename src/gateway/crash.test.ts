// Crash: kill -9 a Gantry process after K completed model requests; after a restart on the
// same store the ledger holds exactly K usage events and K charges, none twice. Completed
// means the client read the whole response, so this proves the event is durable first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../test/helpers/server.ts';

test('kill -9 after K completed requests leaves exactly K usage events', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gantry-crash-'));
  const env = { GANTRY_DATA_DIR: dataDir, GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '100000' };
  let server = await startServer(env);
  try {
    const creds = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
    const K = 7;
    for (let i = 0; i < K; i++) {
      const res = await fetch(`${server.url}/openai/v1/chat/completions`, {
        method: 'POST', headers: { authorization: `Bearer ${creds.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: `request ${i}` }], max_tokens: 20, stream: i % 2 === 1 }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      if (i % 2 === 1) assert.ok(text.trimEnd().endsWith('data: [DONE]'));
    }
    await server.kill('SIGKILL');
    server = await startServer(env);
    const usage = await fetch(`${server.url}/admin/v1/teams/${creds.userId}/usage`, { headers: { authorization: `Bearer ${creds.adminToken}` } });
    const totals = await usage.json() as { events: number; requests: number; ledgerCharges: number };
    assert.equal(usage.status, 200, JSON.stringify(totals));
    assert.equal(totals.events, K);
    assert.equal(totals.requests, K, 'no request recorded twice');
    assert.equal(totals.ledgerCharges, K);
  } finally {
    await server.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
