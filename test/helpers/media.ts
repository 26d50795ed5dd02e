// Media catalogue helpers: records imported by the operator and uploaded by teams, through
// the HTTP surface (multipart), and a signed link fetched as a client would.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { TestApp } from './app.ts';
import { multipart, type FormPart } from './multipart.ts';

export interface ModelFields {
  type: string;
  sd_name: string;
  name?: string;
  source?: string;
  base_model?: string;
  base_model_type?: string;
  is_sdxl?: boolean;
  tags?: string[];
}

function parts(f: ModelFields, content: string | Buffer): FormPart[] {
  const out: FormPart[] = [['type', f.type], ['sd_name', f.sd_name]];
  if (f.name) out.push(['name', f.name]);
  if (f.source) out.push(['source', f.source]);
  if (f.base_model) out.push(['base_model', f.base_model]);
  if (f.base_model_type) out.push(['base_model_type', f.base_model_type]);
  if (f.is_sdxl !== undefined) out.push(['is_sdxl', String(f.is_sdxl)]);
  if (f.tags) out.push(['tags', f.tags.join(',')]);
  out.push(['file', { filename: f.sd_name, content }]);
  return out;
}

export async function postMultipart(t: TestApp, url: string, token: string, p: FormPart[]) {
  const { payload, headers } = await multipart(p);
  const res = await t.app.inject({ method: 'POST', url, headers: { ...headers, authorization: `Bearer ${token}` }, payload });
  return { status: res.statusCode, body: JSON.parse(res.body) };
}

/** The operator imports a public record; returns it. */
export async function importModel(t: TestApp, f: ModelFields, content: string | Buffer = `bytes of ${f.sd_name}`) {
  const r = await postMultipart(t, '/admin/v1/media/models', t.creds.adminToken, parts(f, content));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** A team uploads a private record. */
export function uploadModel(t: TestApp, key: string, f: ModelFields, content: string | Buffer = `bytes of ${f.sd_name}`) {
  return postMultipart(t, '/v3/model/upload', key, parts(f, content));
}

/** GET a signed link (an absolute Gantry URL) through the app. */
export async function fetchLink(t: TestApp, url: string): Promise<{ status: number; bytes: Buffer; contentType: string | undefined }> {
  const u = new URL(url);
  const res = await t.app.inject({ method: 'GET', url: u.pathname + u.search });
  return { status: res.statusCode, bytes: res.rawPayload, contentType: res.headers['content-type'] as string | undefined };
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
