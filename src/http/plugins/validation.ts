// Request validation. Query strings, params and headers arrive as text and are coerced to
// their schema types; JSON bodies are NOT coerced, because coercion silently turns
// "9007199254740993" into a rounded number, or null into 0 — the client sent a type, we judge it.
import { Ajv } from 'ajv';
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
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema));
}
