// `gantry admin media list [--type T[,T…]] [--source S] [--query Q] [--json]`: the public
// media models (the operator's imports) of a running Gantry, every page of
// GET /admin/v1/media/models followed through `next_cursor`. One line per record (id, type,
// the name tasks use, source, size, first bytes of the hash), or the records as JSON.

interface Row {
  id: number;
  type: { name: string };
  sd_name_in_api: string;
  source: string;
  bytes: number;
  hash_sha256: string;
  is_sdxl: boolean;
  base_model_type: string;
}

/** The flags the listing takes, as the API's query parameters. */
const FLAGS: Record<string, string> = { type: 'filter.types', source: 'filter.source', query: 'filter.query', sdxl: 'filter.is_sdxl' };

export function listQuery(flags: Record<string, string>): URLSearchParams {
  const q = new URLSearchParams({ 'pagination.limit': '100' });
  for (const [flag, param] of Object.entries(FLAGS)) if (flags[flag] !== undefined) q.set(param, flags[flag]!);
  return q;
}

function size(n: number): string {
  return n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

export function line(r: Row): string {
  const marks = [r.is_sdxl ? 'sdxl' : '', r.base_model_type === 'Inpainting' ? 'inpainting' : ''].filter(Boolean).join(',');
  return [String(r.id).padStart(5), r.type.name.padEnd(16), r.sd_name_in_api, r.source, size(r.bytes), r.hash_sha256.slice(0, 12), marks].filter(Boolean).join('  ');
}

/** Print every public record (all pages). Exit code: 0, or 1 when a page could not be read. */
export async function runMediaList(flags: Record<string, string>, base: string, token: string, out: (line: string) => void): Promise<number> {
  const q = listQuery(flags);
  const all: Row[] = [];
  for (;;) {
    const res = await fetch(`${base}/admin/v1/media/models?${q}`, { headers: { authorization: `Bearer ${token}` } })
      .catch((e: Error) => ({ ok: false, status: 0, text: async () => `cannot reach Gantry at ${base}: ${e.message}` }));
    const text = await res.text();
    if (!res.ok) {
      out(`gantry admin media list: ${text}`);
      return 1;
    }
    const page = JSON.parse(text) as { models: Row[]; pagination: { next_cursor: string } };
    if (flags.json) all.push(...page.models);
    else for (const r of page.models) out(line(r));
    if (!page.pagination.next_cursor) break;
    q.set('pagination.cursor', page.pagination.next_cursor);
  }
  if (flags.json) out(JSON.stringify(all, null, 2));
  return 0;
}
