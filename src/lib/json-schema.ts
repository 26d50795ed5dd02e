// JSON Schemas that clients send in model requests (tool `parameters`, `response_format`
// json_schema): compiled once with ajv and kept in a small cache, so request validation and
// the simulator, which checks what it generates, share one compiled copy.
// Draft-07 by default (it knows `$defs` too); a schema that names 2020-12 in `$schema` gets
// the 2020-12 dialect. Unknown keywords and formats are ignored, as OpenAI's non-strict mode
// does; a schema ajv cannot compile is the client's error, and so is one nested deeper than
// lib/json-depth.ts allows (ajv, the cache key and the simulator recurse into it).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { JSON_DEPTH_RULE, valueTooDeep } from './json-depth.ts';

const OPTIONS = { strict: false, allErrors: false, logger: false } as const;

function withFormats<A extends Ajv>(ajv: A): A {
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}
const draft07 = withFormats(new Ajv(OPTIONS));
const draft2020 = withFormats(new Ajv2020(OPTIONS) as unknown as Ajv);

/** Compiled schemas by their JSON text; the oldest leaves first (ajv's own cache is emptied with it). */
const cache = new Map<string, { ajv: Ajv; schema: object; validate: ValidateFunction }>();
const CACHE_SIZE = 256;

export class SchemaError extends Error {
  /** the rule broken, when it is not "a valid JSON Schema" */
  readonly rule: string | undefined;
  constructor(message: string, rule?: string) {
    super(message);
    this.rule = rule;
  }
}

const tooDeep = () => new SchemaError(`the schema nests too deeply (${JSON_DEPTH_RULE})`, JSON_DEPTH_RULE);

/** The schema compiled, or SchemaError saying why it cannot be. */
export function compileSchema(schema: unknown): ValidateFunction {
  if (typeof schema === 'boolean') schema = schema ? {} : { not: {} };
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) throw new SchemaError('a JSON Schema must be an object');
  // Bodies are refused past the nesting limit when parsed; a schema from elsewhere that is
  // deep enough to overflow JSON.stringify's stack is refused here, and any other past the
  // limit below, once: a cache hit has the same text, so the same depth.
  let key: string;
  try {
    key = JSON.stringify(schema);
  } catch (e) {
    if (e instanceof RangeError) throw tooDeep();
    throw e;
  }
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // most recently used goes last
    cache.set(key, hit);
    return hit.validate;
  }
  if (valueTooDeep(schema)) throw tooDeep();
  const $schema = (schema as { $schema?: unknown }).$schema;
  const ajv = typeof $schema === 'string' && $schema.includes('2020-12') ? draft2020 : draft07;
  // ajv keys its cache by the object, so it gets a copy of its own; without the root's $id,
  // since ajv registers ids and two clients' schemas may well share one.
  const copy = structuredClone(schema) as Record<string, unknown>;
  delete copy.$id;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(copy);
  } catch (e) {
    ajv.removeSchema(copy);
    throw new SchemaError((e as Error).message);
  }
  cache.set(key, { ajv, schema: copy, validate });
  if (cache.size > CACHE_SIZE) {
    const [oldest, entry] = cache.entries().next().value!;
    cache.delete(oldest);
    entry.ajv.removeSchema(entry.schema);
  }
  return validate;
}

/** The first error of a failed validation, in words: `/path must …`. */
export function firstError(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return 'does not match the schema';
  return `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`;
}
