// Request validation. Query strings, params and headers arrive as text and are coerced to
// their schema types; JSON bodies are NOT coerced, because coercion silently turns
// "9007199254740993" into a rounded number, or null into 0 — the client sent a type, we judge it.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { App } from '../types.ts';

function makeAjv(coerceTypes: boolean | 'array'): Ajv {
  const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

export function registerValidation(app: App): void {
  const body = makeAjv(false);
  const text = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? optionalBody(schema, body.compile(schema)) : text.compile(schema)));
  acceptEmptyJsonBodies(app);
}

/**
 * A body schema wrapped in TypeBox's Type.Optional (e.g. `{suspended?}` of the operator's
 * suspend) accepts a request without a body, read as `{}`; AJV alone would say "body: must
 * be object". Fastify uses the `value` a validator returns as the new body.
 */
function optionalBody(schema: unknown, validate: ValidateFunction): ValidateFunction | ((data: unknown) => boolean | { value: unknown }) {
  if ((schema as Record<string, unknown>)['~optional'] !== true) return validate;
  const check = (data: unknown): boolean | { value: unknown } => {
    if (data === null || data === undefined) return { value: {} };
    const ok = validate(data);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as ValidateFunction['errors'];
  return check;
}

/**
 * The interface lists `Content-Type: application/json` as a header of every operation, so
 * clients send it on DELETE and on body-less POSTs too. Fastify refuses such an empty body
 * (FST_ERR_CTP_EMPTY_JSON_BODY); here it reads as no body, and a route whose schema wants a
 * body still answers 400 naming it. Anything non-empty is parsed exactly as Fastify does.
 */
function acceptEmptyJsonBodies(app: App): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, raw, done) => {
    const text = typeof raw === 'string' ? raw : raw.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(req, text, done);
  });
}
