// Request validation. Query strings, params and headers arrive as text and are coerced to
// their schema types; JSON bodies are NOT coerced, because coercion silently turns
// "9007199254740993" into a rounded number, or null into 0 — the client sent a type, we judge it.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { isInt64Text } from '../../lib/int64.ts';
import { AppError } from '../../lib/errors.ts';
import { JSON_DEPTH_RULE, jsonTooDeep } from '../../lib/json-depth.ts';
import { errorCodes } from 'fastify';
import { OffThreadJson } from '../json-off-thread.ts';
import { readJsonBody } from '../json-body.ts';
import type { App } from '../types.ts';
import type { LazySchemas } from '../lazy-schemas.ts';

function makeAjv(coerceTypes: boolean | 'array', allErrors = false): Ajv {
  // verbose: errors carry their schema, so a 400 can tell a field's whole range (errors.ts).
  // code.optimize off: AJV's pass over the code it generates takes ~45 % of a compile (the
  // chat completions body's is the largest at a start) and validation runs as fast without it
  // (bench/README.md, "the start's CPU").
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors, strict: false, verbose: true, code: { optimize: false } });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  // int64 fields take a string of digits beyond 2^53 (schemas.ts Int64Input): it must fit int8
  ajv.addFormat('int64', { type: 'string', validate: isInt64Text });
  return ajv;
}

/** Validators are compiled at their route's first request (lazy-schemas.ts says why). */
export function registerValidation(app: App, schemas: LazySchemas): void {
  const body = makeAjv(false);
  const text = makeAjv('array');
  const bodyAll = makeAjv(false, true); // routes that refuse with every problem (config.allProblems)
  const allProblems = new Set<string>();
  // Model calls forward their body to the upstream and store none of its strings: a NUL in a
  // prompt is the client's content, as OpenAI takes it. Every other route may store what it
  // is sent, and PostgreSQL keeps no NUL in text (see judged below): media tasks, whose
  // requests are kept with the task, too.
  const forwardedBodies = new Set<string>();
  app.addHook('onRoute', (r) => {
    const modelCall = r.config?.auth?.kind === 'key' && r.config.auth.capability === 'callModels' && r.config.family !== 'media';
    if (modelCall) for (const m of [r.method].flat()) forwardedBodies.add(`${m} ${r.url}`);
    if (r.config?.allProblems) for (const m of [r.method].flat()) allProblems.add(`${m} ${r.url}`);
  });
  app.setValidatorCompiler(({ schema, method, url, httpPart }) => {
    const isBody = httpPart === 'body';
    const all = isBody && allProblems.has(`${method} ${url}`);
    const ajv = all ? bodyAll : isBody ? body : text;
    // the same schema on another route gets the same validator (lazy-schemas.ts)
    const same = `${all ? 'body (all problems)' : isBody ? 'body' : 'text'} validator ${JSON.stringify(schema)}`;
    return judged(schemas.defer(() => ajv.compile(schema), `${method} ${url}`, same), {
      optional: isBody && (schema as Record<string, unknown>)['~optional'] === true,
      forwarded: isBody && forwardedBodies.has(`${method} ${url}`),
    });
  });
  acceptEmptyJsonBodies(app);
}

type Check = ((data: unknown, ctx?: { parentData?: Record<string, unknown>; parentDataProperty?: string }) => boolean | { value: unknown }) & {
  errors: ValidateFunction['errors'];
  schemaEnv?: unknown;
};

/**
 * The schema's verdict, then what no schema says (a 400 naming the field, where PostgreSQL
 * or JSON.parse would otherwise answer for us): no string or key holding U+0000 or a lone
 * UTF-16 surrogate (PostgreSQL stores neither in text or jsonb), and no number beyond
 * ±(2^53 − 1) or infinite (JSON.parse has rounded it; big integers travel as strings).
 * `optional`: a body schema wrapped in TypeBox's Type.Optional (e.g. `{suspended?}` of the
 * operator's suspend) accepts a request without a body, read as `{}`; AJV alone would say
 * "body: must be object". Fastify uses the `value` a validator returns as the new body.
 * `forwarded`: a model call's body, passed to the upstream as the client wrote it.
 */
function judged(compiled: () => ValidateFunction, opts: { optional: boolean; forwarded: boolean }): Check {
  const check: Check = (data, ctx) => {
    if (opts.optional && (data === null || data === undefined)) return { value: {} };
    const validate = compiled();
    const ok = validate(data, ctx as never);
    check.errors = validate.errors;
    if (!ok || opts.forwarded) return ok;
    const bad = unstorable(ctx?.parentData && ctx.parentDataProperty ? ctx.parentData[ctx.parentDataProperty] : data);
    if (!bad) return true;
    check.errors = [{ instancePath: bad.at, schemaPath: '#', keyword: 'storable', params: {}, message: bad.rule }];
    return false;
  };
  check.errors = null;
  // Fastify passes the parent (so AJV may coerce the root) only to a function that has this;
  // every function AJV compiles has one, so it is set before the compile it stands for
  check.schemaEnv = true;
  return check;
}

const TEXT_RULE = 'must be valid Unicode text without NUL (U+0000) characters';
const NUMBER_RULE = `must be within ±${Number.MAX_SAFE_INTEGER} (2^53 − 1) as a JSON number; send larger integers as strings of digits`;

function badText(s: string): boolean {
  return s.includes('\0') || !s.isWellFormed();
}

function badNumber(n: number): boolean {
  return !Number.isFinite(n) || Math.abs(n) > Number.MAX_SAFE_INTEGER;
}

/**
 * The first value of `data` a store could not keep as sent, as a JSON pointer (`/messages/0/content`)
 * and the rule it breaks. Iterative: a body may be nested deeper than the stack.
 */
export function unstorable(data: unknown): { at: string; rule: string } | undefined {
  // each entry: a value and where it is (parent entry, key); the path is built only on a hit
  const values: unknown[] = [data];
  const parents: number[] = [-1];
  const keys: string[] = [''];
  const path = (i: number, last?: string): string => {
    const parts: string[] = last === undefined ? [] : [last];
    for (let at = i; at > 0; at = parents[at]!) parts.push(keys[at]!);
    return parts.length ? '/' + parts.reverse().join('/') : '';
  };
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'string') {
      if (badText(v)) return { at: path(i), rule: TEXT_RULE };
      continue;
    }
    if (typeof v === 'number') {
      if (badNumber(v)) return { at: path(i), rule: NUMBER_RULE };
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let j = 0; j < v.length; j++) {
        values.push(v[j]);
        parents.push(i);
        keys.push(String(j));
      }
      continue;
    }
    for (const key of Object.keys(v)) {
      if (badText(key)) return { at: path(i, key), rule: TEXT_RULE };
      values.push((v as Record<string, unknown>)[key]);
      parents.push(i);
      keys.push(key);
    }
  }
  return undefined;
}

function nestedTooDeep(): AppError {
  return new AppError('INVALID_ARGUMENT', `the body nests arrays and objects too deeply (${JSON_DEPTH_RULE})`, { field: 'body', rule: JSON_DEPTH_RULE });
}

/** a charset parameter that names UTF-8 (or ASCII, a subset of it), quoted or not */
const UTF8_CHARSET = /;\s*charset\s*=\s*"?(utf-?8|us-ascii)"?\s*(;|$)/i;

/**
 * The interface lists `Content-Type: application/json` as a header of every operation, so
 * clients send it on DELETE and on body-less POSTs too. Fastify refuses such an empty body
 * (FST_ERR_CTP_EMPTY_JSON_BODY); here it reads as no body, and a route whose schema wants a
 * body still answers 400 naming it. Anything non-empty is parsed exactly as Fastify does:
 * here, or from BIG_BYTES on, on a worker with the same checks and answers. The body is read
 * by json-body.ts (Fastify's limits and answers, without its one big copy at the end). Both
 * refuse a body nested deeper than lib/json-depth.ts allows before parsing it.
 */
function acceptEmptyJsonBodies(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  // Every body of the interface is JSON: text/plain (Fastify's other default) is a 415 that
  // says so, not a string that fails the schema with "body: must be object".
  const offThread = new OffThreadJson({ onCrash: (err) => app.log.warn({ err }, 'the JSON parsing worker died; its body failed, the others go to a new one') });
  app.addHook('onClose', async () => offThread.close());
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', (req, payload, done) => {
    readJsonBody(payload, req.routeOptions.bodyLimit, Number(req.headers['content-length']), (read) => {
      if ('error' in read) {
        done(read.error, undefined);
        return;
      }
      // The body is read as UTF-8 (JSON's one encoding): any other declared charset is a 415,
      // not a body misread (UTF-16 read as UTF-8 would be NUL bytes and nonsense). Answered once
      // the body is read, as before: an answer that leaves a body unread closes the connection
      // with data in flight, which a client may see as a reset instead of the 415.
      const contentType = req.headers['content-type'] ?? '';
      if (contentType.includes('charset') && !UTF8_CHARSET.test(contentType)) {
        done(new AppError('UNSUPPORTED_MEDIA_TYPE', 'unsupported charset: send UTF-8', { field: 'content-type', rule: 'charset must be utf-8' }), undefined);
        return;
      }
      if ('blocks' in read) {
        // A big body (a long prompt) is parsed on a worker, with the same checks (json-off-thread.ts).
        offThread.parse(read.blocks).then((r) => {
          if ('value' in r) done(null, r.value);
          else if ('empty' in r) done(null, undefined);
          else if ('tooDeep' in r) done(nestedTooDeep(), undefined);
          else if ('failed' in r) done(new AppError('INVALID_ARGUMENT', 'the body could not be parsed', { field: 'body', rule: 'JSON the server can parse' }), undefined);
          else done(new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined);
        }, (e: Error) => done(e, undefined));
        return;
      }
      if (read.text.trim() === '') {
        done(null, undefined);
        return;
      }
      if (jsonTooDeep(read.text)) {
        done(nestedTooDeep(), undefined);
        return;
      }
      void parseJson(req, read.text, done);
    });
  });
}
