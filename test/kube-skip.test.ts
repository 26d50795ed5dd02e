// The real-cluster tests skip, with the reason, when KUBECONFIG is unset or names a missing file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubeconfigSkip } from './helpers/kube-skip.ts';

test('KUBECONFIG unset or missing: skipped saying which; a file there: run', () => {
  assert.match(String(kubeconfigSkip(undefined)), /set KUBECONFIG/);
  assert.match(String(kubeconfigSkip('')), /set KUBECONFIG/);
  const dir = mkdtempSync(join(tmpdir(), 'gantry-kube-skip-'));
  try {
    const missing = join(dir, 'missing.yaml');
    assert.equal(kubeconfigSkip(missing), `KUBECONFIG names ${missing}, which does not exist: point it at a cluster's kubeconfig to run against it`);
    const present = join(dir, 'config.yaml');
    writeFileSync(present, 'apiVersion: v1\n');
    assert.equal(kubeconfigSkip(present), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
