// What the data dir tests share: temp dirs removed after the test, the credentials a first
// start saves, a status read through a real server, polling a condition with a deadline.
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from './server.ts';

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export const modeOf = (path: string) => lstatSync(path).mode & 0o777;

export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-datadir-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface SavedCredentials {
  adminToken: string;
  userId: string;
  ownerMemberId: string;
  keyId: string;
  apiKey: string;
}

export function readCreds(dataDir: string): SavedCredentials {
  return JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8'));
}

export async function status(server: Server, path: string, token: string): Promise<number> {
  const res = await fetch(server.url + path, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

/** Poll a condition (each check is a request) until it holds; fail after `limitMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function newTokenOf(output: string): string {
  const m = /adminToken\s+(gop_\S+)/.exec(output);
  assert.ok(m, `no new token printed:\n${output}`);
  return m[1]!;
}
