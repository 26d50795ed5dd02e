// A first run's refusals, as an operator reads them: `gantry serve` on a port already in use
// is one line naming the address and the setting to change, exit 1, and nothing was made in
// the data dir (no store opened, migrated or seeded; it was a stack trace after seeding).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGantry } from '../../test/helpers/server.ts';

test('serve on a port in use: one line naming the address and PORT, exit 1, before the store is made', async () => {
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = holder.address() as AddressInfo;
  const dir = mkdtempSync(join(tmpdir(), 'gantry-port-in-use-'));
  const dataDir = join(dir, 'data');
  try {
    const { code, output } = await runGantry(['serve'], { GANTRY_DATA_DIR: dataDir, PORT: String(port) });
    assert.equal(code, 1, output);
    const lines = output.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line, got:\n${output}`);
    assert.equal(lines[0], `gantry serve: 127.0.0.1:${port} is already in use (another Gantry, or another server): stop it, or set PORT (and HOST) to listen elsewhere`);
    assert.doesNotMatch(output, /\n\s+at /, 'no stack trace');
    assert.ok(!existsSync(dataDir), 'the data dir was not even created: nothing was seeded');
  } finally {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
});
