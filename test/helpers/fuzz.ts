// Request fuzzing from the app's own description of itself: the registered routes (method,
// url, family, auth) joined with the OpenAPI document (every parameter and body schema).
// For each operation a baseline request is built from its schemas, then every field of it
// is mutated; every answer must be a client error (or a success) in the unified error body
// of the route's family, with a request id, without the request path echoed back.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { RouteEntry } from '../../src/app.ts';
import type { RouteAuth } from '../../src/http/types.ts';
import { familyOfPath, mayAnswer, type Family } from '../../src/lib/error-families.ts';
import type { Reason } from '../../src/lib/errors.ts';

export type Schema = Record<string, any>;
type Part = 'path' | 'query' | 'body';

export interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** Fastify's form, `/a/:id` or `/a/*` */
  url: string;
  family: Family;
  auth: RouteAuth | undefined;
  params: Param[];
  body: Schema | undefined;
  /** the largest body the route reads, bytes */
  bodyLimit: number;
}

/** The routes of the app with their schemas; a route the document hides is fuzzed without any. */
export function operations(doc: any, routes: RouteEntry[]): Operation[] {
  const out: Operation[] = [];
  for (const r of routes) {
    const openapiPath = r.url.replace(/:([A-Za-z_]\w*)/g, '{$1}').replace(/\*$/, '{*}');
    const o = doc.paths?.[openapiPath]?.[r.method.toLowerCase()];
    out.push({
      method: r.method, url: r.url, family: r.family ?? familyOfPath(r.url), auth: r.auth,
      params: (o?.parameters ?? []).map((p: any) => ({ name: p.name, in: p.in, required: !!p.required, schema: p.schema ?? {} })),
      body: o?.requestBody?.content?.['application/json']?.schema, bodyLimit: r.bodyLimit,
    });
  }
  return out;
}

// ---- values ----

/** A JSON number literal written as is (beyond what a JS number holds exactly). */
export class Raw {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const ABSENT = Symbol('absent');
export type Value = unknown;

/** JSON text with Raw literals in place. */
export function toJson(v: Value): string {
  const raws: string[] = [];
  const text = JSON.stringify(v, (_k, x) => {
    if (x instanceof Raw) {
      raws.push(x.text);
      return `\u0001raw${raws.length - 1}\u0001`;
    }
    return x;
  });
  return text === undefined ? '' : text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_m, i) => raws[Number(i)]!);
}

/** Values known by field name, so that a baseline reaches the domain (real ids, sane sizes). */
export type Known = (name: string, op: Operation) => Value | undefined;

function types(s: Schema): string[] {
  return s.type === undefined ? [] : [s.type].flat();
}

/** A value that satisfies `s` as far as a schema can tell. */
export function sample(s: Schema, name: string, op: Operation, known: Known, depth = 0, bare = false): Value {
  const k = known(name, op);
  if (k !== undefined && fits(s, k)) return k;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (s.default !== undefined) return s.default;
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants)) {
    const v = variants.find((x: Schema) => !types(x).includes('null')) ?? variants[0];
    return sample(v, name, op, known, depth, bare);
  }
  const t = types(s);
  const obj = objectVariant(s);
  if (obj || t.includes('object')) {
    const o: Record<string, Value> = {};
    for (const key of obj?.required ?? []) o[key] = sample(obj?.properties?.[key] ?? {}, key, op, known, depth + 1, bare);
    // optional fields the fixture knows (real ids) are filled in too, so the request reaches the domain
    for (const [key, sub] of Object.entries<Schema>(obj?.properties ?? {})) {
      if (!bare && o[key] === undefined && known(key, op) !== undefined) o[key] = sample(sub, key, op, known, depth + 1);
    }
    return o;
  }
  if (t.includes('array')) return depth > 6 ? [] : Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => sample(s.items ?? {}, name, op, known, depth + 1, bare));
  if (t.includes('integer') || t.includes('number')) return Math.min(Math.max(1, s.minimum ?? 1), s.maximum ?? Infinity);
  if (t.includes('boolean')) return false;
  if (t.includes('string')) {
    if (typeof s.pattern === 'string' && /0-9/.test(s.pattern)) return '1';
    if (s.format === 'date-time') return '2025-01-01T00:00:00Z';
    return 'x'.repeat(Math.max(1, s.minLength ?? 1));
  }
  if (t.includes('null')) return null;
  return 'x';
}

function fits(s: Schema, v: Value): boolean {
  const t = types(s);
  if (Array.isArray(s.enum) && !s.enum.includes(v)) return false;
  if (!t.length) return true;
  if (typeof v === 'string') return t.includes('string');
  if (typeof v === 'number') return t.includes('integer') || t.includes('number');
  if (typeof v === 'boolean') return t.includes('boolean');
  if (Array.isArray(v)) return t.includes('array');
  return t.includes('object');
}

// ---- fields ----

export interface Field {
  part: Part;
  /** property names and array indexes from the part's root; [] is the whole body */
  path: (string | number)[];
  schema: Schema;
  required: boolean;
}

export function fieldName(f: Field): string {
  return [f.part, ...f.path].join('.');
}

/** Every field of the operation: path and query parameters, and every property of the body at any depth. */
export function fieldsOf(op: Operation): Field[] {
  const out: Field[] = [];
  for (const p of op.params) out.push({ part: p.in, path: [p.name], schema: p.schema, required: p.required });
  if (op.body) {
    out.push({ part: 'body', path: [], schema: op.body, required: true });
    walk(op.body, [], out, 0);
  }
  return out;
}

function objectVariant(s: Schema): Schema | undefined {
  if (s.properties) return s;
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf.map(objectVariant).filter(Boolean) as Schema[];
    if (parts.length) return { type: 'object', properties: Object.assign({}, ...parts.map((p) => p.properties)), required: parts.flatMap((p) => p.required ?? []) };
  }
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants)) for (const v of variants) {
    const o = objectVariant(v);
    if (o) return o;
  }
  return undefined;
}

function arrayVariant(s: Schema): Schema | undefined {
  if (types(s).includes('array')) return s;
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants)) for (const v of variants) if (types(v).includes('array')) return v;
  return undefined;
}

function walk(s: Schema, at: (string | number)[], out: Field[], depth: number): void {
  if (depth > 5) return;
  const obj = objectVariant(s);
  if (obj) {
    for (const [key, sub] of Object.entries<Schema>(obj.properties ?? {})) {
      const path = [...at, key];
      out.push({ part: 'body', path, schema: sub, required: (obj.required ?? []).includes(key) });
      walk(sub, path, out, depth + 1);
    }
    return;
  }
  const arr = arrayVariant(s);
  if (arr?.items && (objectVariant(arr.items) || arrayVariant(arr.items))) {
    const path = [...at, 0];
    out.push({ part: 'body', path, schema: arr.items, required: true });
    walk(arr.items, path, out, depth + 1);
  }
}

// ---- requests ----

export interface Request {
  path: Record<string, string>;
  /** raw path segments, already percent-encoded as they are to be sent */
  rawPath: Record<string, string>;
  query: [string, string][];
  /** the raw query string instead of `query` */
  rawQuery?: string;
  body: Value | typeof ABSENT;
  /** the body text as is, instead of `body` */
  rawBody?: string;
  contentType?: string;
}

export function baseline(op: Operation, known: Known): Request {
  const req: Request = { path: {}, rawPath: {}, query: [], body: ABSENT };
  for (const p of op.params) {
    if (p.in === 'path') req.path[p.name] = String(sample(p.schema, p.name, op, known));
    else if (p.required || known(p.name, op) !== undefined) req.query.push([p.name, String(sample(p.schema, p.name, op, known))]);
  }
  if (op.body) req.body = sample(op.body, '', op, known);
  return req;
}

function clone(r: Request): Request {
  return { ...r, path: { ...r.path }, rawPath: { ...r.rawPath }, query: r.query.map(([k, v]) => [k, v]), body: r.body === ABSENT ? ABSENT : structuredClone(r.body) };
}

/** A mutation of one field: a value, or the field removed. */
export type Mutation = { kind: string; value: Value } | { kind: 'missing' } | { kind: string; raw: string };

function mutationValue(m: Mutation): Value | typeof ABSENT {
  return 'value' in m ? m.value : ABSENT;
}

/** The request with one field changed. Parents of a nested body field are filled in from their schemas. */
export function mutate(op: Operation, base: Request, f: Field, m: Mutation, known: Known): Request {
  const r = clone(base);
  if (f.part === 'path') {
    const name = f.path[0] as string;
    if ('raw' in m) r.rawPath[name] = m.raw;
    else r.path[name] = 'value' in m ? textOf(m.value) : '';
    return r;
  }
  if (f.part === 'query') {
    const name = f.path[0] as string;
    r.query = r.query.filter(([k]) => k !== name);
    if ('raw' in m) r.rawQuery = [...r.query.map(([k, v]) => `${enc(k)}=${enc(v)}`), m.raw].join('&');
    else if ('value' in m) r.query.push([name, textOf(m.value)]);
    return r;
  }
  if ('raw' in m) {
    r.rawBody = m.raw;
    return r;
  }
  if (f.path.length === 0) {
    r.body = mutationValue(m);
    return r;
  }
  if (r.body === ABSENT || typeof r.body !== 'object' || r.body === null) r.body = {};
  let at: any = r.body;
  let s: Schema = op.body ?? {};
  for (let i = 0; i < f.path.length - 1; i++) {
    const key = f.path[i]!;
    s = childSchema(s, key);
    if (at[key] === undefined || at[key] === null || typeof at[key] !== 'object') {
      at[key] = typeof f.path[i + 1] === 'number' ? [] : sample(s, String(key), op, known);
      if (typeof f.path[i + 1] === 'number') at[key].push(sample(childSchema(s, 0), String(key), op, known));
      if (typeof at[key] !== 'object' || at[key] === null) at[key] = typeof f.path[i + 1] === 'number' ? [] : {};
    }
    at = at[key];
  }
  const last = f.path[f.path.length - 1]!;
  if ('value' in m) at[last] = m.value;
  else if (Array.isArray(at)) at.splice(last as number, 1);
  else delete at[last];
  return r;
}

function childSchema(s: Schema, key: string | number): Schema {
  if (typeof key === 'number') return arrayVariant(s)?.items ?? {};
  return objectVariant(s)?.properties?.[key] ?? {};
}

function textOf(v: Value): string {
  if (v instanceof Raw) return v.text;
  if (typeof v === 'string') return v;
  return JSON.stringify(v) ?? '';
}

/** Percent-encoding of any JS string (a lone surrogate is sent as U+FFFD, as a client would). */
function enc(s: string): string {
  return encodeURIComponent(s.toWellFormed());
}

/** The URL as sent: path params percent-encoded (or raw), query in order. */
export function urlOf(op: Operation, r: Request): string {
  let url = op.url.replace(/:([A-Za-z_]\w*)/g, (_m, name: string) => r.rawPath[name] ?? enc(r.path[name] ?? ''));
  if (url.endsWith('*')) url = url.slice(0, -1) + (r.rawPath['*'] ?? (r.path['*'] ?? '').split('/').map(enc).join('/'));
  const qs = r.rawQuery ?? r.query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
  return qs ? `${url}?${qs}` : url;
}

export function injectOptions(op: Operation, r: Request, authorization: string | undefined): InjectOptions {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  const payload = r.rawBody ?? (r.body === ABSENT ? undefined : toJson(r.body));
  if (payload !== undefined) headers['content-type'] = r.contentType ?? 'application/json';
  return { method: op.method as 'GET', url: urlOf(op, r), headers, ...(payload !== undefined ? { payload } : {}) };
}

// ---- the answer ----

export interface Problem {
  category: '5xx' | 'shape' | 'family' | 'request-id' | 'echo';
  detail: string;
}

/** What is wrong with an answer, if anything. `family` is the route's (or the path's, for no route). */
export function judge(family: Family, url: string, res: LightMyRequestResponse): Problem[] {
  const problems: Problem[] = [];
  const status = res.statusCode;
  let body: any;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = undefined;
  }
  const serviceDown = status === 503 && body?.reason === 'SERVICE_NOT_AVAILABLE';
  if (status >= 500 && !serviceDown) problems.push({ category: '5xx', detail: `${status} ${res.body.slice(0, 300)}` });
  if (!res.headers['x-request-id']) problems.push({ category: 'request-id', detail: `${status} without x-request-id` });
  // A worker's own answer, passed through by an endpoint URL, is the worker's bytes, not
  // Gantry's (a 431 from its HTTP server for a path no real socket would carry past ours).
  if (status < 400 || res.headers['x-gantry-worker-id']) return problems;
  const flat = body && typeof body === 'object' && !Array.isArray(body)
    && Number.isInteger(body.code) && typeof body.reason === 'string' && typeof body.message === 'string'
    && body.metadata && typeof body.metadata === 'object' && !Array.isArray(body.metadata)
    && Object.values(body.metadata).every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
  if (!flat) problems.push({ category: 'shape', detail: `${status} ${res.body.slice(0, 300)}` });
  else {
    if (body.code !== status) problems.push({ category: 'shape', detail: `code ${body.code} on a ${status}` });
    if (!mayAnswer(family, body.reason as Reason)) problems.push({ category: 'family', detail: `${family} route answered ${body.reason}` });
  }
  const path = url.split('?')[0]!;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch { /* not decodable: the raw form is the one to look for */ }
  if (res.body.includes(path) || res.body.includes(JSON.stringify(decoded).slice(1, -1))) {
    problems.push({ category: 'echo', detail: `${status} echoes the path: ${res.body.slice(0, 300)}` });
  }
  return problems;
}

// ---- the mutations every field gets ----

const LONG = 'x'.repeat(70_000);

export function deepArray(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

/** Valid JSON nested `levels` deep in objects. */
export function deepObject(levels: number): string {
  return '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
}

/** Edge values by the field's declared type, plus the ones every field gets. */
export function mutationsOf(f: Field, op: Operation, known: Known): Mutation[] {
  const t = new Set(f.schema.anyOf ? f.schema.anyOf.flatMap(types) : types(f.schema));
  const out: Mutation[] = [
    { kind: 'missing' },
    { kind: 'null', value: null },
    { kind: 'nul', value: 'a\u0000b' },
    { kind: 'nul-only', value: '\u0000' },
    { kind: 'empty', value: '' },
    { kind: 'wrong-type:bool', value: true },
    { kind: 'wrong-type:object', value: { x: 1 } },
    { kind: 'wrong-type:array', value: ['x'] },
  ];
  if (f.part === 'body') {
    out.push({ kind: 'wrong-type:number', value: 12345 });
    out.push({ kind: 'deep', raw: deepArray(5000) });
    // the field itself nested past what JSON.stringify, ajv or a walk can recurse into
    out.push({ kind: 'deep-value', value: new Raw(deepArray(20_000)) });
  }
  if (t.has('string') || t.size === 0) {
    out.push({ kind: 'long', value: LONG }, { kind: 'lone-surrogate', value: 'a\ud800b' }, { kind: 'escapes', value: '%00%zz%25zz' });
    out.push({ kind: 'unicode', value: 'ü\u202e😀\u200b' }, { kind: 'sql', value: "' or 1=1 --" });
  }
  if (t.has('integer') || t.has('number')) {
    for (const n of [-1, 0, 1.5, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 32, -1e308]) out.push({ kind: `number:${n}`, value: n });
    for (const text of ['9007199254740993', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '18446744073709551616', '1e308', '1e-7', '123456789012345678901234567890']) {
      out.push({ kind: `number:${text}`, value: new Raw(text) });
      out.push({ kind: `digits:${text}`, value: text });
    }
    // Unix seconds: far future, the last second of year 9999, the first one after, JavaScript's last date
    for (const n of [99_999_999_999, 253_402_300_799, 253_402_300_800, 8_640_000_000_000]) out.push({ kind: `digits:${n}`, value: String(n) }, { kind: `number:${n}`, value: n });
  } else if (t.has('string') || t.size === 0) {
    // a string a domain may read as a number (sizes, ids of digits), and numbers where text goes
    for (const text of ['9223372036854775808', '1e308', '-1']) out.push({ kind: `digits:${text}`, value: text });
    for (const text of ['2147483648', '1e308']) out.push({ kind: `number:${text}`, value: new Raw(text) });
  }
  if (t.has('array')) out.push({ kind: 'array:empty', value: [] }, { kind: 'array:large', value: Array.from({ length: 5000 }, () => 'x') });
  if (t.has('object')) out.push({ kind: 'object:empty', value: {} }, { kind: 'object:extra', value: { fuzz_extra: 1, 'k\u0000': 'v' } });
  if (f.part === 'path') {
    for (const raw of ['%00', 'a%00b', '%zz', '%25zz', '%', '%2F', '..', '%C0%AF', '%ED%A0%80', '%F0%9F%98%80', 'x'.repeat(300)]) out.push({ kind: `path:${raw.slice(0, 12)}`, raw });
  }
  if (f.part === 'query') {
    const name = enc(f.path[0] as string);
    for (const raw of [`${name}=%00`, `${name}=a%00b`, `${name}=%zz`, `${name}=%25zz`, `${name}=1&${name}=2`, `${name}[]=1`, `${name}[x]=1`, `${name}[=1`, `${name}%00=1`, `${name}`, `${name}==`]) {
      out.push({ kind: `query:${raw.slice(name.length)}`, raw });
    }
  }
  if (f.part === 'body' && f.path.length === 0) {
    // a partial body: only what the schema requires (every optional field missing at once)
    out.push({ kind: 'body:required-only', value: sample(f.schema, '', op, known, 0, true) });
    for (const raw of ['{', '[]', '"x"', '1', 'null', 'true', '{"a":1}{"b":2}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '\u0000', '{"a":"\\u0000"}', deepArray(100_000), '{"a":'.repeat(10_000), deepObject(100_000)]) {
      out.push({ kind: `body:${raw.slice(0, 16)}`, raw });
    }
  }
  return out;
}
