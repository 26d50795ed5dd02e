// compose's nginx (deploy/compose/nginx.conf) keeps /metrics off the published port: a
// location that matches it (and /metrics/, which Gantry serves too) denies every client and
// passes nothing on, and it is a regex location, which nginx prefers over `location /`.
// Read as text: the image tier's compose check (test/compose.image.test.ts) validates the file
// with the compose tool where it is installed; this rule holds everywhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const conf = readFileSync(new URL('../deploy/compose/nginx.conf', import.meta.url), 'utf8').replace(/#.*$/gm, '');

/** Each `location <modifier> <pattern> { … }` of the file, with its body (no nested blocks in ours). */
function locations(text: string): { modifier: string; pattern: string; body: string }[] {
  return [...text.matchAll(/location\s+(=|~\*?|\^~)?\s*(\S+)\s*\{([^}]*)\}/g)].map((m) => ({ modifier: m[1] ?? '', pattern: m[2]!, body: m[3]! }));
}

/** Whether nginx would choose `loc` for `path` over the prefix `location /` (exact or regex). */
function chooses(loc: { modifier: string; pattern: string }, path: string): boolean {
  if (loc.modifier === '=') return loc.pattern === path;
  if (loc.modifier.startsWith('~')) return new RegExp(loc.pattern, loc.modifier === '~*' ? 'i' : '').test(path);
  return false;
}

test('compose\'s nginx denies /metrics and /metrics/ to every client and proxies everything else', () => {
  const all = locations(conf);
  assert.ok(all.some((l) => l.pattern === '/' && /proxy_pass http:\/\/gantry;/.test(l.body)), 'location / proxies to the replicas');
  for (const path of ['/metrics', '/metrics/']) {
    const chosen = all.filter((l) => chooses(l, path));
    assert.equal(chosen.length, 1, `one location takes ${path}`);
    assert.match(chosen[0]!.body, /^\s*deny all;\s*$/, `${path}: denied, nothing else (no proxy_pass, no allow)`);
  }
  for (const path of ['/metricsx', '/openai/v1/metrics', '/healthz', '/console']) {
    assert.deepEqual(all.filter((l) => chooses(l, path)), [], `${path} goes to location /`);
  }
});
