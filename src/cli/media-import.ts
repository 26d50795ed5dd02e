// `gantry admin media import <folder | manifest.json>`: public media models into a running
// Gantry, one multipart call of the operator API (POST /admin/v1/media/models) per file,
// streamed from disk. What each file is comes from:
// - a JSON manifest: `{"models": [{"file": "<path relative to the manifest>", "type": "lora", "name": …, …}]}`
//   (or the array alone), fields as the API takes them (type, name, sd_name, source,
//   base_model, base_model_type, is_sdxl, tags, categories, cover_url);
// - a folder: its `manifest.json` if it has one; else every file under a subfolder named for
//   its type (`checkpoint/`, `lora/`, `vae/`, `controlnet/`, `upscaler/`,
//   `textualinversion/`), with the fields of an optional sidecar `<file>.json`.
import { existsSync, openAsBlob, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { MODEL_TYPES } from '../domain/media/codes.ts';

export interface ImportItem {
  path: string;
  fields: Record<string, unknown>;
}

const FIELD_NAMES = ['type', 'name', 'sd_name', 'source', 'base_model', 'base_model_type', 'is_sdxl', 'tags', 'categories', 'cover_url'];

function fromManifest(file: string): ImportItem[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const list = Array.isArray(parsed) ? parsed : (parsed as { models?: unknown }).models;
  if (!Array.isArray(list)) throw new Error(`${file}: expected {"models": [...]} or an array of models`);
  return list.map((m: Record<string, unknown>, i) => {
    if (typeof m?.file !== 'string') throw new Error(`${file}: models[${i}].file is required (a path relative to the manifest)`);
    const { file: path, ...fields } = m;
    return { path: resolve(dirname(file), path as string), fields };
  });
}

function fromFolder(dir: string): ImportItem[] {
  const manifest = join(dir, 'manifest.json');
  if (existsSync(manifest)) return fromManifest(manifest);
  const items: ImportItem[] = [];
  for (const type of MODEL_TYPES) {
    const sub = join(dir, type);
    if (!existsSync(sub)) continue;
    for (const name of readdirSync(sub).sort()) {
      const path = join(sub, name);
      if (name.endsWith('.json') || name.startsWith('.') || !statSync(path).isFile()) continue;
      const sidecar = `${path}.json`;
      const extra = existsSync(sidecar) ? JSON.parse(readFileSync(sidecar, 'utf8')) as Record<string, unknown> : {};
      items.push({ path, fields: { ...extra, type } });
    }
  }
  if (!items.length) throw new Error(`${dir}: no manifest.json and no files under ${MODEL_TYPES.map((t) => `${t}/`).join(', ')}`);
  return items;
}

/** What a folder or a manifest names, in order. */
export function importItems(path: string): ImportItem[] {
  if (!existsSync(path)) throw new Error(`${path} does not exist`);
  return statSync(path).isDirectory() ? fromFolder(path) : fromManifest(path);
}

async function formOf(item: ImportItem): Promise<FormData> {
  const fd = new FormData();
  for (const k of FIELD_NAMES) {
    const v = item.fields[k];
    if (v === undefined || v === null) continue;
    fd.append(k, Array.isArray(v) ? JSON.stringify(v) : String(v));
  }
  fd.append('file', await openAsBlob(item.path), basename(item.path));
  return fd;
}

/** Import every item; prints a line per file. Exit code: 0 when all were imported. */
export async function runMediaImport(path: string, base: string, token: string, out: (line: string) => void): Promise<number> {
  let items: ImportItem[];
  try {
    items = importItems(path);
  } catch (e) {
    out(`gantry admin media import: ${(e as Error).message}`);
    return 2;
  }
  let failed = 0;
  for (const item of items) {
    let body: FormData;
    try {
      body = await formOf(item);
    } catch (e) {
      failed++;
      out(`failed ${item.path}: cannot read it (${(e as Error).message})`);
      continue;
    }
    const res = await fetch(`${base}/admin/v1/media/models`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body })
      .catch((e: Error) => ({ ok: false, status: 0, text: async () => `cannot reach Gantry at ${base}: ${e.message}` }));
    const text = await res.text();
    if (res.ok) {
      const r = JSON.parse(text) as { id: number; sd_name_in_api: string; type: { name: string }; hash_sha256: string };
      out(`imported ${r.type.name} ${r.sd_name_in_api} (id ${r.id}, sha256 ${r.hash_sha256.slice(0, 12)}…)`);
    } else {
      failed++;
      out(`failed ${item.path}: ${text}`);
    }
  }
  out(`${items.length - failed} of ${items.length} imported`);
  return failed ? 1 : 0;
}
