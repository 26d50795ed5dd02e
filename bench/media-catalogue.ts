// The media model catalogue at 100,000 records on PostgreSQL: latency of GET /v3/model
// through HTTP (key auth, the query, signed download links, JSON) for the first page, a
// filtered query, a page deep in the cursor chain and a rare text query. A database of its own
// (created, then dropped) on BENCH_DATABASE_URL's server; Gantry in this process, the load
// (one connection, requests one after another) too.
// Usage: node bench/media-catalogue.ts [--records 100000] [--requests 1000] [--write] [--keep]
// (--keep: leave the database for EXPLAIN; its name is printed, drop it yourself)
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Pool } from 'undici';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openStore, migrateStore } from '../src/store/db.ts';
import { systemClock } from '../src/lib/clock.ts';
import { standaloneCtx } from '../src/domain/context.ts';
import { bootstrap } from '../src/domain/bootstrap.ts';
import { parseQuery } from '../src/http/querystring.ts';
import { listMediaModels, type CatalogueQuery } from '../src/domain/media/catalogue.ts';

const arg = (name: string, def: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : def);
const RECORDS = arg('--records', 100_000);
const REQUESTS = arg('--requests', 1000);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dbName = `gantry_bench_media_${process.pid}`;
const dbUrl = (() => {
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${dbName}`);
const dataDir = mkdtempSync(join(tmpdir(), 'gantry-bench-media-'));
const store = await openStore({ databaseUrl: dbUrl, poolSize: 10 });
try {
  await migrateStore(store);
  const creds = (await bootstrap(standaloneCtx(store.db, systemClock), { seedVoucherUnits: 0n }))!;
  // Records: six types, ~30 % SDXL, three sources, 5 % inpainting checkpoints, tags from a
  // small vocabulary; 2 % private, spread over 50 teams (the bench team's among them).
  const t0 = performance.now();
  await store.db.execute(sql`
    insert into media_models (team_id, name, sd_name, sd_name_in_api, hash_sha256, type, categories, tags, search, source,
      base_model, base_model_type, is_sdxl, status, blob_key, bytes, created_at_ms, updated_at_ms)
    select team, name, sd, sd, md5(i::text) || md5((i + 1)::text), type, '[]'::jsonb, to_jsonb(array[tag1, tag2]),
      lower(sd || E'\n' || name || E'\n' || tag1 || E'\n' || tag2), source, 'SD 1.5',
      case when type = 'checkpoint' and i % 20 = 0 then 'Inpainting' else 'Standard' end, i % 10 < 3, 1, 'media/models/bench', 1024, 0, 0
    from (
      select i,
        case when i % 50 = 0 then (case when i % 2500 = 0 then ${creds.userId} else 'usr_other_' || (i % 49) end) else null end as team,
        (array['checkpoint','lora','vae','controlnet','upscaler','textualinversion'])[1 + i % 6] as type,
        (array['civitai','training','uploading'])[1 + (i / 7) % 3] as source,
        'Model ' || i || ' ' || (array['Dream','Real','Anime','Pixel','Ink','Film','Neon','Retro'])[1 + (i / 3) % 8] as name,
        'model_' || i || '.safetensors' as sd,
        (array['photo','portrait','landscape','anime','style','detail','3d','pixel art'])[1 + i % 8] as tag1,
        (array['sharp','soft','dark','bright','vintage','modern','color','mono','xl','fast','clean'])[1 + (i / 11) % 11] as tag2
      from generate_series(1, ${RECORDS}) as i
    ) s`);
  await store.db.execute(sql`analyze media_models`);
  const loadS = (performance.now() - t0) / 1000;

  const config = loadConfig({ LOG_LEVEL: 'warn', GANTRY_DATA_DIR: dataDir, DATABASE_URL: dbUrl, GANTRY_RUN_JOBS: 'false' });
  const { app, services } = await buildApp({ config, store, clock: systemClock, logger: false });
  const principal = { teamId: creds.userId, memberId: creds.ownerMemberId, keyId: creds.keyId, role: 'Owner' as const };
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const pool = new Pool(base, { connections: 1 });
  const headers = { authorization: `Bearer ${creds.apiKey}` };

  async function get(path: string): Promise<any> {
    const r = await pool.request({ path, method: 'GET', headers });
    const body = await r.body.json() as any;
    if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode} ${JSON.stringify(body)}`);
    return body;
  }
  // a cursor halfway through the public records (page after page would take long: the id is the cursor)
  const deep = `c_${Math.floor(RECORDS / 2)}`;
  const cases: [name: string, path: string][] = [
    ['first page (20)', '/v3/model'],
    ['first page (100)', '/v3/model?pagination.limit=100'],
    ['filtered: lora + SDXL + query "portrait"', '/v3/model?filter[types]=lora&filter[is_sdxl]=true&filter[query]=portrait&pagination[limit]=20'],
    ['filtered: inpainting checkpoints', '/v3/model?filter.is_inpainting=true&pagination.limit=20'],
    ['filtered: private only', '/v3/model?filter.visibility=private&pagination.limit=20'],
    ['deep page (cursor at the middle)', `/v3/model?pagination.limit=20&pagination.cursor=${deep}`],
    ['rare query (one record)', `/v3/model?filter.query=model_${RECORDS - 3}.safetensors`],
  ];
  const rows: string[] = [];
  for (const [name, path] of cases) {
    const first = await get(path);
    if (!first.models.length) throw new Error(`${name}: no records`);
    for (let i = 0; i < 50; i++) await get(path); // warm-up
    const lat: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      await get(path);
      lat.push(performance.now() - t);
    }
    // the same page from the domain (query, links), without HTTP: what the store costs
    const query = parseQuery(path.split('?')[1] ?? '') as CatalogueQuery;
    const dom: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      await listMediaModels(services.media.catalogue, principal, query);
      dom.push(performance.now() - t);
    }
    const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!.toFixed(2);
    rows.push(`| ${name} | ${first.models.length} | ${pct(lat, 0.5)} | ${pct(lat, 0.99)} | ${pct(dom, 0.5)} | ${pct(dom, 0.99)} |`);
    process.stdout.write(`${rows.at(-1)}\n`);
  }
  await pool.close();
  await app.close();
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const header = `\n${new Date().toISOString().slice(0, 16)} UTC, ${RECORDS.toLocaleString('en')} records (inserted in ${loadS.toFixed(1)} s), ${REQUESTS} requests each, load average ${load}\n\n`
    + '| request | records | HTTP p50 ms | HTTP p99 ms | domain p50 ms | domain p99 ms |\n|---|---:|---:|---:|---:|---:|\n';
  process.stdout.write(header + rows.join('\n') + '\n');
  if (process.argv.includes('--write')) {
    const readme = new URL('./README.md', import.meta.url);
    const text = readFileSync(readme, 'utf8');
    const mark = '<!-- media-catalogue-results -->';
    writeFileSync(readme, text.replace(mark, `${mark}\n${header}${rows.join('\n')}\n`));
  }
} finally {
  await store.close();
  if (process.argv.includes('--keep')) process.stdout.write(`kept database ${dbName}\n`);
  else await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
}
