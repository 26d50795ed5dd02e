// No 5xx for anything a client can send. Every registered route (with its schemas from
// /openapi.json) gets a baseline request, then every field of it is mutated: NUL bytes,
// integers beyond any column, numbers beyond 2^53, wrong types, missing and extra fields,
// empty, long and deep values, broken %-escapes in the path and query, broken bodies and
// content types. Every answer must be below 500, in the unified error body of the route's
// family, with an x-request-id, and must not echo the request path. Then fast-check draws
// random values for random fields (fixed seed). A new route is fuzzed as soon as it is
// registered. FUZZ_RUNS=<n> (random cases per operation) and FUZZ_SEED run a longer pass.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { as } from './helpers/http.ts';
import { createTeam, topup, type Team } from './helpers/factories.ts';
import { multipart } from './helpers/multipart.ts';
import {
  Raw, baseline, deepArray, deepObject, fieldName, fieldsOf, injectOptions, judge, mutate, mutationsOf, operations,
  type Field, type Known, type Mutation, type Operation, type Problem, type Request,
} from './helpers/fuzz.ts';
import { familyOfPath, reasonInFamily } from '../src/lib/error-families.ts';
import { JSON_DEPTH_RULE } from '../src/lib/json-depth.ts';
import { seedMediaDemo } from '../src/domain/media/demo.ts';

const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 30);
const SEED = Number(process.env.FUZZ_SEED ?? 20250601);
const CONCURRENCY = 4;

let h: TestApp;
let A: Team; // the tenant whose Owner calls every tenant route
let B: Team; // the team the operator routes act on (suspended, re-tiered… without harming A)
let ops: Operation[];
const ids: Record<string, string> = {};
/** replaced by a fresh number in every request: e-mails and idempotency keys are new each time */
const UNIQUE = '{unique}';
let unique = 0;

/** requests sent, by kind of mutation; problems, by category and by category and kind */
const tally = { requests: 0, sent: new Map<string, number>(), byCategory: new Map<string, number>(), byKind: new Map<string, number>() };
const failures: string[] = [];

function record(what: string, kind: string, problems: Problem[]): void {
  tally.requests++;
  tally.sent.set(kind, (tally.sent.get(kind) ?? 0) + 1);
  for (const p of problems) {
    tally.byCategory.set(p.category, (tally.byCategory.get(p.category) ?? 0) + 1);
    tally.byKind.set(`${p.category} ${kind}`, (tally.byKind.get(`${p.category} ${kind}`) ?? 0) + 1);
    if (failures.length < 400) failures.push(`[${p.category}] ${what}: ${p.detail}`);
  }
}

/** Ids and values a baseline needs to reach the domain, by field name. */
const known: Known = (name, op) => {
  const operator = op.auth?.kind === 'operator';
  const team = operator ? B : A;
  const chat = op.url.includes('embeddings') || op.url.includes('rerank') ? 'gantry/sim-embed' : 'gantry/sim-chat-small';
  switch (name) {
    case 'userId': return team.userId;
    case 'memberId': case 'member_id': return team.members.Developer.memberId;
    case 'keyId': case 'key_id': case 'stringId': return team.members.Developer.keyId;
    // not the instance's log: following a live instance's log never ends (its 200s are tested beside the route)
    case 'instanceId': return op.url.endsWith('/gpu/instance/log') ? undefined : ids.instance;
    case 'templateId': case 'Id': return ids.template;
    case 'storageId': return ids.storage;
    case 'clusterId': return 'cls_local';
    case 'productId': return op.url.includes('/gpu/products/') || op.url.includes('gpu-instance') ? 'prd_rtx4090_24g' : undefined;
    case 'id':
      if (op.url.endsWith('/endpoint/create')) return 'prd_rtx4090_24g'; // products[].id
      if (op.url.endsWith('/endpoint') || op.url.endsWith('/endpoint/update') || op.url.endsWith('/endpoint/metrics')) return ids.endpoint; // not the logs: following one never ends
      if (op.url.startsWith('/openapi/v1/webhook/endpoints/')) return ids.webhookEndpoint;
      if (op.url.startsWith('/admin/v1/models/:id/')) return 'gantry/sim-chat-small'; // a seeded model (its upstream key, its health)
      if (op.url.startsWith('/admin/v1/gpu/templates/:id')) return 'tpl_fuzz_published'; // published by the PUT's baseline, then retired
      if (op.url === '/admin/v1/gpu/clusters/:id/retire') return 'cls_fuzz_absent'; // 404: retiring the seeded cluster would take every later create's GPUs
      return op.url.includes('repository/auth') ? ids.registryAuth : op.url === '/admin/v1/models' ? 'fuzz/model' : undefined;
    case 'model': return op.url === '/admin/v1/quotas' ? 'fuzz/model' : op.url.includes('/admin/v1/models') ? undefined : chat;
    case '*': return chat;
    case 'role': return op.url.includes('members') ? 'Basic' : 'user';
    case 'content': case 'prompt': case 'input': case 'query': return 'Tell me about rivers.';
    case 'documents': return ['rivers', 'stones'];
    case 'email': case 'ownerEmail': return `fuzz-${UNIQUE}@example.com`;
    case 'imageUrl': case 'image': return 'nvidia/cuda:12.4.0-base-ubuntu22.04';
    case 'appName': return op.url.startsWith('/serverless/') ? 'fuzz-ep' : undefined;
    case 'kind': return 'gpu';
    case 'channel': return 'private';
    case 'type': return op.url.includes('template') ? 'instance' : undefined;
    case 'name': return op.url.endsWith('/endpoint/delete') ? ids.endpoint : 'fuzz';
    case 'storageName': case 'title': return 'fuzz';
    case 'rootfsSize': return 50;
    case 'gpuNum': return op.url.includes('/gpu/instance/create') ? 1 : undefined;
    case 'storageSize': return op.url.includes('update') ? 100_000 : 20; // a volume only grows
    case 'month': return 1;
    case 'cycleType': return 'Day';
    case 'productCategory': return op.url.includes('/billing/') ? 'gpu' : undefined;
    case 'startTime': return Math.floor(h.clock.nowMs() / 1000) - 86_400;
    case 'endTime': return Math.floor(h.clock.nowMs() / 1000);
    case 'idempotencyKey': return `fuzz-${UNIQUE}`;
    case 'enabledModels': return ['gantry/sim-chat-small'];
    case 'billingMethods': return ['onDemand'];
    case 'imageAuthId': return ids.registryAuth;
    case 'file_id': return ids.file;
    case 'input_file_id': return ids.file;
    case 'batch_id': return ids.batch;
    case 'endpoint': return op.url.endsWith('/batches') ? '/v1/chat/completions' : undefined;
    case 'completion_window': return '48h';
    case 'purpose': return op.url.endsWith('/files') ? 'batch' : undefined;
    case 'totalGpus': return 1000;
    case 'budget_type': return 'One-time';
    case 'budget_limit': return 20_000;
    case 'mode': return 'all_enabled';
    case 'mountPath': return '/data';
    case 'url': return op.url.startsWith('/openapi/v1/webhook/') || op.url.startsWith('/v3/async/') ? 'https://example.com/hook' : undefined;
    case 'events': return op.url.startsWith('/openapi/v1/webhook/') ? ['batch.completed'] : undefined;
    case 'model_name': return op.url === '/v3/async/txt2img' ? 'sd_xl_base_1.0.safetensors' : undefined;
    case 'task_id': return ids.task;
    default: return undefined;
  }
};

function authorization(op: Operation): string | undefined {
  if (op.auth?.kind === 'operator') return `Bearer ${h.creds.adminToken}`;
  if (op.auth?.kind === 'key') return `Bearer ${A.owner.apiKey}`;
  return undefined;
}

const VERBOSE = process.env.FUZZ_VERBOSE === '1';

async function send(op: Operation, r: Request, what: string, kind: string): Promise<number> {
  const opts = injectOptions(op, r, authorization(op));
  if (typeof opts.payload === 'string') opts.payload = opts.payload.replaceAll(UNIQUE, () => String(++unique));
  const res = await h.app.inject(opts);
  if (VERBOSE && kind === 'baseline' && res.statusCode >= 300) console.log(`baseline ${op.method} ${op.url} → ${res.statusCode} ${res.body.slice(0, 200)} (sent ${String(opts.url)} ${String(opts.payload ?? '').slice(0, 200)})`);
  // an answer no route gave (a path that matches none) is in the family of the path as
  // resolved ('/openai/models/../..' is '/')
  const family = res.statusCode === 404 && JSON.parse(res.body || '{}').metadata?.method ? familyOfPath(new URL(opts.url as string, 'http://x').pathname) : op.family;
  record(`${op.method} ${op.url} ${what}`, kind, judge(family, opts.url as string, res));
  return res.statusCode;
}

async function pool<T>(items: T[], n: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** Routes that take something away from the fixture run last, so the others still find it. */
function destructiveLast(a: Operation, b: Operation): number {
  // The endpoint URL first: while only the fixture endpoint (serving) exists, a mutated
  // appName names nothing (404) rather than an endpoint the walk created without a worker,
  // where a request would wait out its requestTimeout for a 504.
  const rank = (o: Operation) => (o.url.startsWith('/serverless/') ? -1
    : /delete|revoke|disable|suspend|remove|reclaim|migrate|stop/i.test(o.url) || o.method === 'DELETE' ? 1 : 0);
  return rank(a) - rank(b);
}

before(async () => {
  h = await buildTestApp({ env: { GANTRY_SIM_TTFT_MS: '0', GANTRY_SIM_TOKENS_PER_S: '1000000' } });
  const admin = as(h.app, h.creds.adminToken);
  A = await createTeam(h.app, h.creds.adminToken, 'fuzz-a');
  B = await createTeam(h.app, h.creds.adminToken, 'fuzz-b');
  await topup(h.app, h.creds.adminToken, A.userId, 100_000_000);
  // rate limits would answer 429 before the body is judged: lift them for A
  const quotas = await admin.get(`/admin/v1/teams/${A.userId}/quotas`);
  for (const q of quotas.body.data) {
    const r = await admin.put(`/admin/v1/teams/${A.userId}/quotas`, { model: q.quotaObject, quotaType: q.quotaType, currentQuota: 1_000_000_000 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const inventory = await admin.put('/admin/v1/gpu/products/prd_rtx4090_24g/inventory/cls_local', { totalGpus: 1000 });
  assert.equal(inventory.status, 200, JSON.stringify(inventory.body));
  const owner = as(h.app, A.owner.apiKey);
  const BASE = '/gpu-instance/openapi/v1';
  const inst = await owner.post(`${BASE}/gpu/instance/create`, { name: 'fuzz', productId: 'prd_rtx4090_24g', gpuNum: 1, rootfsSize: 50, imageUrl: 'nvidia/cuda:12.4.0-base-ubuntu22.04', kind: 'gpu' });
  assert.equal(inst.status, 200, JSON.stringify(inst.body));
  ids.instance = inst.body.id;
  for (let i = 0; i < 600; i++) { // the instance runs, so that start, stop, edit… reach their rules
    if ((await owner.get(`${BASE}/gpu/instance`, { instanceId: ids.instance! })).body.status === 'running') break;
    h.clock.advance(1000);
    await h.services.compute.reconcile();
  }
  const tpl = await owner.post(`${BASE}/template/create`, { template: { name: 'fuzz', type: 'instance', channel: 'private', image: 'nvidia/cuda:12.4.0-base-ubuntu22.04', rootfsSize: 50 } });
  assert.equal(tpl.status, 200, JSON.stringify(tpl.body));
  ids.template = tpl.body.templateId;
  const vol = await owner.post(`${BASE}/networkstorage/create`, { storageName: 'fuzz', clusterId: 'cls_local', storageSize: 10 });
  assert.equal(vol.status, 200, JSON.stringify(vol.body));
  ids.storage = vol.body.storageId;
  const auth = await owner.post(`${BASE}/repository/auth/save`, { name: 'fuzz', username: 'u', password: 'p' });
  assert.equal(auth.status, 200, JSON.stringify(auth.body));
  ids.registryAuth = auth.body.id;
  const ep = await owner.post(`${BASE}/endpoint/create`, {
    endpoint: { appName: 'fuzz-ep', image: { image: 'gantry/sim-worker:1' }, ports: [{ port: 8080 }], products: [{ id: 'prd_rtx4090_24g' }], healthy: { path: '/health', period: 1 }, workerConfig: { maxConcurrent: 64 } },
  });
  assert.equal(ep.status, 200, JSON.stringify(ep.body));
  ids.endpoint = ep.body.id;
  for (let i = 0; i < 600; i++) { // a worker serves, so that the endpoint URL reaches it
    const e = (await owner.get(`${BASE}/endpoint`, { id: ids.endpoint! })).body.endpoint;
    if (e.state.state === 'serving' && e.workers.some((w: { healthy: boolean }) => w.healthy)) break;
    h.clock.advance(1000);
    await h.services.serverlessRuntime.reconcile();
  }
  const { payload, headers } = await multipart([['purpose', 'batch'], ['file', { filename: 'fuzz.jsonl', content: '{"custom_id":"a","body":{}}\n' }]]);
  const file = await h.app.inject({ method: 'POST', url: '/openai/v1/files', headers: { ...headers, authorization: `Bearer ${A.owner.apiKey}` }, payload });
  assert.equal(file.statusCode, 200, file.body);
  ids.file = JSON.parse(file.body).id;
  const batch = await as(h.app, A.owner.apiKey).post('/openai/v1/batches', { input_file_id: ids.file, endpoint: '/v1/chat/completions', completion_window: '48h' });
  assert.equal(batch.status, 200, JSON.stringify(batch.body));
  ids.batch = batch.body.id;
  const hook = await as(h.app, A.owner.apiKey).post('/openapi/v1/webhook/endpoints', { url: 'https://example.com/hook', events: ['batch.completed'] });
  assert.equal(hook.status, 200, JSON.stringify(hook.body));
  ids.webhookEndpoint = hook.body.id;
  await seedMediaDemo(h.services.ctx, h.services.blobs.store); // the catalogue txt2img's names are checked against
  const task = await as(h.app, A.owner.apiKey).post('/v3/async/txt2speech', { request: { voice_id: 'fuzz', texts: ['fuzz'] } });
  assert.equal(task.status, 200, JSON.stringify(task.body));
  ids.task = task.body.task_id;
  ops = operations(h.app.swagger(), h.routes).sort(destructiveLast);
});
after(async () => {
  const count = (m: Map<string, number>) => JSON.stringify(Object.fromEntries([...m].sort((a, b) => b[1] - a[1])));
  console.log(`fuzz: ${tally.requests} requests over ${ops?.length ?? 0} operations; 5xx: ${tally.byCategory.get('5xx') ?? 0}; problems ${count(tally.byCategory)}; sent by kind ${count(tally.sent)}`);
  await h?.close();
});

test('every registered route is described: parameters and bodies come from /openapi.json', () => {
  const undocumented = ops.filter((o) => o.url !== '/openapi.json' && o.params.length === 0 && !o.body && /:|\*/.test(o.url));
  assert.deepEqual(undocumented.map((o) => `${o.method} ${o.url}`), []);
  assert.ok(ops.length >= 100, `${ops.length} operations`);
});

test('walk: every field of every operation, with every edge value, answers < 500 in the unified body', async () => {
  failures.length = 0;
  const started = Date.now();
  let baselinesOk = 0;
  for (const op of ops) {
    const opStarted = Date.now();
    const before = tally.requests;
    const base = baseline(op, known);
    const cases: { f: Field; m: Mutation }[] = [];
    for (const f of fieldsOf(op)) for (const m of mutationsOf(f, op, known)) cases.push({ f, m });
    await pool(cases, CONCURRENCY, async ({ f, m }) => {
      await send(op, mutate(op, base, f, m, known), `${fieldName(f)} ← ${m.kind}`, m.kind.split(':')[0]!);
    });
    for (const contentType of ['text/plain', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset="utf-8"', 'APPLICATION/JSON', 'application/jsonx', '']) {
      if (op.method === 'GET') break;
      await send(op, { ...base, rawBody: base.rawBody ?? '{}', contentType }, `content-type ${contentType}`, 'content-type');
    }
    for (const extra of ['/x', '%00', '/%zz']) await send({ ...op, url: op.url.replace(/\*$/, 'a/b') + extra }, base, `unknown path +${extra}`, 'path');
    const status = await send(op, base, 'baseline', 'baseline');
    if (status < 300) baselinesOk++;
    if (VERBOSE) console.log(`op ${op.method} ${op.url}: ${tally.requests - before} requests, ${Date.now() - opStarted} ms`);
  }
  const ms = Date.now() - started;
  console.log(`fuzz walk: ${tally.requests} requests over ${ops.length} operations in ${ms} ms; baselines answered 2xx: ${baselinesOk}/${ops.length}; problems: ${JSON.stringify(Object.fromEntries(tally.byCategory))}`);
  report();
  // the baselines are what makes the mutations reach the domain: most must be accepted
  assert.ok(baselinesOk >= ops.length * 0.6, `only ${baselinesOk} of ${ops.length} baselines were accepted`);
});

// ---- nesting: one body must not be able to fail another's request (issue 29) ----

test('deeply nested bodies: 400 naming the rule on every route that takes JSON, under and over 1 MiB, never 5xx', { timeout: 300_000 }, async () => {
  failures.length = 0;
  const refusals: string[] = [];
  const expect = async (op: Operation, r: Request, what: string, statuses: number[]) => {
    const opts = injectOptions(op, r, authorization(op));
    const res = await h.app.inject(opts);
    record(`${op.method} ${op.url} ${what}`, 'nesting', judge(op.family, opts.url as string, res));
    const body = JSON.parse(res.body || '{}');
    const rule = res.statusCode === 400 ? body.metadata?.rule === JSON_DEPTH_RULE && body.reason === reasonInFamily(op.family, 'INVALID_ARGUMENT', 'body') : true;
    if (!statuses.includes(res.statusCode) || !rule) refusals.push(`${op.method} ${op.url} ${what}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  };
  const withBody = ops.filter((o) => o.body && o.method !== 'GET');
  assert.ok(withBody.length >= 50, `${withBody.length} operations take a JSON body`);
  const over = deepArray(3_500_000); // 7 MB: parsed off the main thread where the route takes that much
  for (const op of withBody) {
    const base = baseline(op, known);
    const fields = base.body !== null && typeof base.body === 'object' && !Array.isArray(base.body) ? base.body : {};
    // the route's own request, one field of it nested past the limit (a 40 KB body, parsed here)
    await expect(op, { ...base, body: { ...fields, fuzz_deep: new Raw(deepArray(20_000)) } }, 'with a field nested 20,000 deep', [400]);
    await expect(op, { ...base, rawBody: deepObject(129) }, 'nested 129 deep', [400]);
    // a route that takes 8 MiB (model calls, inline images): the worker refuses it; any other is past its 1 MiB first
    await expect(op, { ...base, rawBody: over }, 'nested 3.5M deep (7 MB)', op.bodyLimit > over.length ? [400] : [413]);
  }
  // a response format's schema nested 20,000 levels on a model route (under 1 MiB)
  const chat = withBody.find((o) => o.url === '/openai/v1/chat/completions')!;
  const schema = '{"type":"array","items":'.repeat(20_000) + '{}' + '}'.repeat(20_000);
  await expect(chat, { ...baseline(chat, known), rawBody: JSON.stringify({ model: 'gantry/sim-chat-small', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'deep', schema: 0 } } }).replace('"schema":0', `"schema":${schema}`) }, 'json_schema nested 20,000 deep', [400]);
  assert.deepEqual(refusals, []);
  report();
});

// ---- random values in random fields: fast-check, with a fixed seed ----

const EDGE: unknown[] = [
  '\u0000', 'a\u0000', '\ud800', '\udfff x', '', ' ', '%00', '%zz', '../..', 'x'.repeat(5000),
  -1, 0, 1, 2 ** 31, 2 ** 32, 2 ** 53, -(2 ** 63), 1e308, -1e308, 0.5, new Raw('1e400'), new Raw('-0'),
  new Raw('9223372036854775808'), '9223372036854775808', '-9223372036854775809', '99999999999', '1e308',
  true, false, null, [], {}, [[[]]], { a: { b: { c: 1 } } },
];

const value: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...EDGE),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\ud800', 'a', '%', '/', '{', '"', '\\', ' '), maxLength: 12 }),
  fc.integer(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => new Raw(n.toString())),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => n.toString()),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 9, arbitrary: value.map((v) => ({ kind: 'random', value: v })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'missing' } as Mutation) },
);

test('property: any values in up to three fields at once (fast-check) answer < 500 in the unified body', async () => {
  failures.length = 0;
  const started = tally.requests;
  for (const op of ops) {
    const fields = fieldsOf(op);
    if (!fields.length) continue;
    const base = baseline(op, known);
    const changes = fc.array(fc.tuple(fc.constantFrom(...fields), mutation), { minLength: 1, maxLength: 3 });
    const out = await fc.check(fc.asyncProperty(changes, async (cs) => {
      let r = base;
      for (const [f, m] of cs) r = mutate(op, r, f, m, known);
      const before = failures.length;
      await send(op, r, cs.map(([f, m]) => `${fieldName(f)} ← ${describe(m)}`).join(', '), 'random');
      return failures.length === before;
    }), { seed: SEED, numRuns: RUNS_PER_OPERATION });
    if (out.failed) failures.push(`fast-check ${op.method} ${op.url}: seed ${SEED}, path ${out.counterexamplePath}`);
  }
  console.log(`fuzz property: ${tally.requests - started} requests (${RUNS_PER_OPERATION} cases per operation, seed ${SEED}, shrinking included)`);
  report();
});

function describe(m: Mutation): string {
  if (!('value' in m)) return m.kind;
  const v = m.value instanceof Raw ? m.value.text : JSON.stringify(m.value) ?? String(m.value);
  return v.length > 40 ? `${v.slice(0, 40)}…` : v;
}

// ---- what never reaches a route: Node's HTTP parser, the router, the body parser ----

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** the server closed the connection after answering */
  closed: boolean;
}

/** Raw bytes on a new connection; the answers, and whether the server closed it. */
function rawExchange(port: number, bytes: string | Buffer, answers = 1): Promise<Answer[]> {
  record('raw socket', 'transport', []);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let closed = false;
    const parse = (): Answer[] => {
      const out: Answer[] = [];
      let rest = data.toString('latin1');
      while (rest.includes('\r\n\r\n')) {
        const [head, ...tail] = rest.split('\r\n\r\n');
        const lines = head!.split('\r\n');
        const headers: Record<string, string> = {};
        for (const l of lines.slice(1)) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
        const length = Number(headers['content-length'] ?? 0);
        const after = tail.join('\r\n\r\n');
        if (after.length < length) break;
        out.push({ status: Number(lines[0]!.split(' ')[1]), headers, body: after.slice(0, length), closed: false });
        rest = after.slice(length);
      }
      return out;
    };
    socket.on('data', (d) => {
      data = Buffer.concat([data, d]);
      if (parse().length >= answers && answers > 1) socket.end();
    });
    socket.on('error', () => { /* a reset after the answer: judged by what was read */ });
    socket.on('close', () => {
      closed = true;
      const out = parse();
      if (!out.length) return reject(new Error(`no answer to ${String(bytes).slice(0, 80)}`));
      out[out.length - 1]!.closed = closed;
      resolve(out);
    });
    socket.setTimeout(10_000, () => socket.destroy());
    socket.write(bytes);
  });
}

function assertUnified(a: Answer, status: number, reason: string, where: string): void {
  assert.equal(a.status, status, `${where}: ${a.body}`);
  const body = JSON.parse(a.body);
  assert.deepEqual([body.code, body.reason], [status, reason], where);
  assert.equal(typeof body.message, 'string', where);
  assert.equal(typeof body.metadata, 'object', where);
  assert.ok(a.headers['x-request-id'], `${where}: x-request-id`);
  assert.match(a.headers['content-type'] ?? '', /application\/json/, where);
}

test('transport refusals: unified body, request id, no path echoed, Connection: close when the socket ends', async () => {
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  const port = (h.app.server.address() as { port: number }).port;
  const key = A.owner.apiKey;
  const secretPath = '/openai/v1/models/echo-me-not';

  // headers beyond the limit (431) and a request line beyond it (414): Node's parser refuses them
  const [big] = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assertUnified(big!, 431, 'HEADERS_TOO_LARGE', '431');
  assert.equal(big!.headers.connection, 'close');
  assert.ok(big!.closed, 'the server ends the socket it said it would close');
  const [long] = await rawExchange(port, `GET ${secretPath}/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assertUnified(long!, 414, 'URI_TOO_LONG', '414');
  assert.equal(long!.headers.connection, 'close');
  assert.ok(!long!.body.includes('echo-me-not'));
  // bytes that are no HTTP, and a request smuggling both lengths: 400 in the path's family
  const [junk] = await rawExchange(port, 'HELLO\r\n\r\n');
  assertUnified(junk!, 400, 'INVALID_ARGUMENT', 'junk');
  const [both] = await rawExchange(port, 'POST /gpu-instance/openapi/v1/gpu/instance/start HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
  assertUnified(both!, 400, 'VALIDATOR_PARAM', 'CL+TE');

  // refusals by the router and the body parser: the next request on the connection is answered,
  // or the refusal said `Connection: close` and the socket is closed
  const next = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
  const cases: [string, number, string][] = [
    [`GET ${secretPath}/%zz HTTP/1.1\r\nHost: x\r\n\r\n`, 400, 'INVALID_REQUEST_BODY'],
    [`GET /admin/v1/teams/${'x'.repeat(150)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.creds.adminToken}\r\n\r\n`, 414, 'URI_TOO_LONG'],
    [`GET /no/such/echo-me-not HTTP/1.1\r\nHost: x\r\n\r\n`, 404, 'NOT_FOUND'],
    [`POST /openapi/v1/user/team/check-budget HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json; charset=utf-16\r\nContent-Length: 2\r\n\r\n{}`, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [`POST /openapi/v1/user/team/check-budget HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}`, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [`POST /openapi/v1/user/team/check-budget HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"a":`, 400, 'INVALID_ARGUMENT'],
  ];
  for (const [bytes, status, reason] of cases) {
    const answers = await rawExchange(port, bytes + next, 2);
    assertUnified(answers[0]!, status, reason, bytes.slice(0, 60));
    assert.ok(!answers[0]!.body.includes('echo-me-not'), `${bytes.slice(0, 60)}: the path is not echoed`);
    // either the connection still serves, or the answer said it would not
    if (answers[0]!.headers.connection === 'close') assert.ok(answers.length === 1 && answers[0]!.closed, `${bytes.slice(0, 60)}: closed as said`);
    else assert.equal(answers[1]?.status, 200, `${bytes.slice(0, 60)}: the connection still serves`);
  }

  // a keep-alive client sees no reset: after each refusal its next request succeeds
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string, headers: Record<string, string> = {}) => new Promise<number>((resolve, reject) => {
    record('keep-alive client', 'transport', []);
    const r = httpRequest({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('error', reject);
    r.end();
  });
  try {
    for (const [path, headers, status] of [
      ['/healthz', {}, 200], ['/healthz', { 'x-big': 'a'.repeat(20_000) }, 431], ['/healthz', {}, 200],
      [`/openai/v1/models/${'a'.repeat(20_000)}`, {}, 414], ['/healthz', {}, 200], ['/openai/v1/models/%zz', {}, 400], ['/healthz', {}, 200],
    ] as [string, Record<string, string>, number][]) {
      assert.equal(await get(path, headers), status, path.slice(0, 40));
    }
  } finally {
    agent.destroy();
  }
});

function report(): void {
  if (!failures.length) return;
  const byKind = [...tally.byKind.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${n}\t${k}`).join('\n');
  assert.fail(`${failures.length} problems:\n${byKind}\n\n${failures.slice(0, Number(process.env.FUZZ_SHOW ?? 60)).join('\n')}`);
}
