// Helpers of the batch tests: input files, upload, and running a batch's jobs to the end.
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import { multipart } from './multipart.ts';

export const SMALL = 'gantry/sim-chat-small';

export const chatLine = (i: number, extra: Record<string, unknown> = {}) => ({
  custom_id: `r${i}`, method: 'POST', url: '/v1/chat/completions',
  body: { model: SMALL, messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 8 }, ...extra,
});

export const jsonl = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;

/** Upload a batch input file through HTTP; its id. */
export async function uploadInput(t: TestApp, key: string, content: string, filename = 'input.jsonl'): Promise<string> {
  const { payload, headers } = await multipart([['purpose', 'batch'], ['file', { filename, content }]]);
  const res = await t.app.inject({ method: 'POST', url: '/openai/v1/files', headers: { ...headers, authorization: `Bearer ${key}` }, payload });
  assert.equal(res.statusCode, 200, res.body);
  return JSON.parse(res.body).id;
}

/** Run every due job (validation, lines, finalizer) until none is left. */
export async function runBatchJobs(t: TestApp): Promise<void> {
  while (await t.services.jobs.runDue() > 0) { /* a pass may queue more (the finalizer) */ }
}

/** The JSONL lines of a file's content, parsed. */
export async function fileLines(t: TestApp, key: string, fileId: string): Promise<any[]> {
  const res = await t.app.inject({ method: 'GET', url: `/openai/v1/files/${fileId}/content`, headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.statusCode, 200, res.body);
  return res.body.trim().split('\n').map((l) => JSON.parse(l));
}
