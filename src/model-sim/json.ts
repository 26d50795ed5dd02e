// The simulator's structured output: a JSON value generated from a JSON Schema, as a model
// in OpenAI's structured-outputs mode would write it. The generator walks the schema
// (types, required and optional properties, enum, const, $ref into the schema, allOf,
// anyOf/oneOf, array bounds, string lengths and formats, number bounds, multipleOf) with a
// seeded random source, and ajv checks the result: a value ajv refuses is drawn again with
// other choices, and after a few draws the schema is declared unsatisfiable. Contradictions
// the walk meets (minimum above maximum, an enum with nothing in it, a required property
// that additionalProperties: false forbids, a $ref to nowhere…) are reported with their
// place in the schema, so the client's 400 says why.
import { compileSchema, firstError, SchemaError } from '../lib/json-schema.ts';

type Schema = Record<string, unknown> | boolean;
type Rand = () => number;

/** The schema cannot be satisfied (or not by this generator); `message` says where and why. */
export class Unsatisfiable extends Error {}

const WORDS = ('river stone garden window market signal system number letter music paper orange silver quiet rapid ' +
  'light cloud model token answer question simple small large bright early green north summer winter').split(' ');
/** Nesting past this depth generates only what is required (arrays at their minimum), so recursive schemas end. */
const LEAN_DEPTH = 3;
const MAX_DEPTH = 24;
const DRAWS = 8;

/** A value valid against `schema`, deterministic for a given `rand` sequence; throws Unsatisfiable. */
export function jsonFor(schema: unknown, rand: Rand): unknown {
  let validate: ReturnType<typeof compileSchema>;
  try {
    validate = compileSchema(schema);
  } catch (e) {
    if (e instanceof SchemaError) throw new Unsatisfiable(`the schema is invalid: ${e.message}`);
    throw e;
  }
  let last = '';
  for (let draw = 0; draw < DRAWS; draw++) {
    const value = new Walk(schema as Schema, rand).value(schema as Schema, '#', 0);
    if (validate(value)) return value;
    last = firstError(validate.errors);
  }
  throw new Unsatisfiable(`no value the simulator draws matches the schema (${last})`);
}

function pick<T>(rand: Rand, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function isObj(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function num(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

/** JSON pointer inside the root document: `#`, `#/$defs/a`, with ~0 ~1 escapes. */
function resolvePointer(root: Schema, ref: string, at: string): Schema {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) throw new Unsatisfiable(`${at}: $ref "${ref}" does not point inside the schema (only "#/…" references are followed)`);
  let cur: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObj(cur) && !Array.isArray(cur)) throw new Unsatisfiable(`${at}: $ref "${ref}" points at nothing`);
    cur = (cur as Record<string, unknown>)[key];
    if (cur === undefined) throw new Unsatisfiable(`${at}: $ref "${ref}" points at nothing`);
  }
  if (typeof cur !== 'boolean' && !isObj(cur)) throw new Unsatisfiable(`${at}: $ref "${ref}" does not point at a schema`);
  return cur;
}

const ANNOTATIONS = new Set(['$ref', 'title', 'description', '$comment', 'examples', 'default', 'deprecated', '$schema', '$id', '$defs', 'definitions']);

/** allOf members folded into one schema: properties and required united, bounds narrowed. */
function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const mine = out[k];
    if (mine === undefined) out[k] = v;
    else if (k === 'properties' && isObj(mine) && isObj(v)) {
      const props: Record<string, unknown> = { ...mine };
      for (const [p, s] of Object.entries(v)) props[p] = isObj(props[p]) && isObj(s) ? merge(props[p] as Record<string, unknown>, s) : s;
      out[k] = props;
    } else if (k === 'required' && Array.isArray(mine) && Array.isArray(v)) out[k] = [...new Set([...mine, ...v])];
    else if (['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'].includes(k) && typeof mine === 'number' && typeof v === 'number') out[k] = Math.max(mine, v);
    else if (['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'].includes(k) && typeof mine === 'number' && typeof v === 'number') out[k] = Math.min(mine, v);
    else if (k === 'enum' && Array.isArray(mine) && Array.isArray(v)) out[k] = mine.filter((x) => v.some((y) => JSON.stringify(x) === JSON.stringify(y)));
    else if (k === 'type') {
      const t = [mine].flat().filter((x) => [v].flat().includes(x) || (x === 'integer' && [v].flat().includes('number')));
      const u = [v].flat().filter((x) => x === 'integer' && [mine].flat().includes('number'));
      out[k] = [...new Set([...t, ...u])];
    } else out[k] = v; // other keywords: the later member wins, and ajv judges the value
  }
  return out;
}

class Walk {
  private readonly root: Schema;
  private readonly rand: Rand;
  constructor(root: Schema, rand: Rand) {
    this.root = root;
    this.rand = rand;
  }

  /** The schema with $ref and allOf folded in (siblings of $ref apply too, as in 2019-09 and later). */
  private flatten(s: Schema, at: string, depth: number): Schema {
    if (typeof s === 'boolean') return s;
    if (depth > MAX_DEPTH) throw new Unsatisfiable(`${at}: the schema nests deeper than ${MAX_DEPTH} levels (does a $ref cycle require itself?)`);
    let out: Record<string, unknown> = s;
    if (typeof s.$ref === 'string') {
      const target = this.flatten(resolvePointer(this.root, s.$ref, at), `${at}/$ref`, depth + 1);
      if (target === false) throw new Unsatisfiable(`${at}: $ref "${s.$ref}" is the schema false, which accepts nothing`);
      const rest = Object.fromEntries(Object.entries(s).filter(([k]) => k !== '$ref'));
      out = target === true ? rest : merge(target, rest);
    }
    if (Array.isArray(out.allOf)) {
      let acc: Record<string, unknown> = Object.fromEntries(Object.entries(out).filter(([k]) => k !== 'allOf'));
      for (const [i, m] of (out.allOf as Schema[]).entries()) {
        const f = this.flatten(m, `${at}/allOf/${i}`, depth + 1);
        if (f === false) throw new Unsatisfiable(`${at}/allOf/${i}: the schema false accepts nothing`);
        if (f !== true) acc = merge(acc, f);
      }
      out = acc;
    }
    return out;
  }

  value(schema: Schema, at: string, depth: number): unknown {
    const s = this.flatten(schema, at, depth);
    if (s === false) throw new Unsatisfiable(`${at}: the schema false accepts nothing`);
    if (s === true) return pick(this.rand, WORDS);
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum)) {
      if (s.enum.length === 0) throw new Unsatisfiable(`${at}: enum has no values`);
      return pick(this.rand, s.enum);
    }
    const branches = (Array.isArray(s.anyOf) ? 'anyOf' : Array.isArray(s.oneOf) ? 'oneOf' : undefined);
    if (branches) return this.branch(s, branches, at, depth);
    const type = this.typeOf(s, at);
    switch (type) {
      case 'null': return null;
      case 'boolean': return this.rand() < 0.5;
      case 'integer': return this.integer(s, at);
      case 'number': return this.number(s, at);
      case 'string': return this.string(s, at);
      case 'array': return this.array(s, at, depth);
      default: return this.object(s, at, depth);
    }
  }

  /** One branch, tried in a seeded order; a branch that cannot be satisfied gives way to the next. */
  private branch(s: Record<string, unknown>, key: 'anyOf' | 'oneOf', at: string, depth: number): unknown {
    const list = s[key] as Schema[];
    if (list.length === 0) throw new Unsatisfiable(`${at}: ${key} has no schemas`);
    const rest = Object.fromEntries(Object.entries(s).filter(([k]) => k !== key));
    // Nested deep, the branches without a $ref (null, a leaf) come first so recursion ends.
    const order = list.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(this.rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    if (depth >= LEAN_DEPTH) order.sort((x, y) => refWeight(list[x]) - refWeight(list[y])); // stable: the shuffle stays within each group
    let why = '';
    for (const i of order) {
      try {
        const b = list[i]!;
        const member = b === true ? rest : b === false ? false : Object.keys(rest).some((k) => !ANNOTATIONS.has(k)) ? { allOf: [rest, b] } : b;
        return this.value(member, `${at}/${key}/${i}`, depth + 1);
      } catch (e) {
        if (!(e instanceof Unsatisfiable)) throw e;
        why = e.message;
      }
    }
    throw new Unsatisfiable(why);
  }

  private typeOf(s: Record<string, unknown>, at: string): string {
    if (Array.isArray(s.type)) {
      if (s.type.length === 0) throw new Unsatisfiable(`${at}: type lists no types (its allOf members may disagree)`);
      // A model fills a nullable field with a value more often than with null.
      const real = s.type.filter((t) => t !== 'null');
      return String(real.length && this.rand() < 0.85 ? pick(this.rand, real) : pick(this.rand, s.type));
    }
    if (typeof s.type === 'string') return s.type;
    if ('properties' in s || 'required' in s || 'additionalProperties' in s) return 'object';
    if ('items' in s || 'prefixItems' in s || 'minItems' in s || 'maxItems' in s) return 'array';
    if ('minLength' in s || 'maxLength' in s || 'pattern' in s || 'format' in s) return 'string';
    if ('minimum' in s || 'maximum' in s || 'exclusiveMinimum' in s || 'exclusiveMaximum' in s || 'multipleOf' in s) return 'number';
    return 'string';
  }

  private bounds(s: Record<string, unknown>, at: string, integer: boolean): [number, number] {
    let lo = num(s.minimum) ?? -Infinity;
    let hi = num(s.maximum) ?? Infinity;
    const xlo = num(s.exclusiveMinimum);
    const xhi = num(s.exclusiveMaximum);
    const step = integer ? 1 : 1e-6;
    if (xlo !== undefined) lo = Math.max(lo, integer ? Math.floor(xlo) + 1 : xlo + step);
    if (xhi !== undefined) hi = Math.min(hi, integer ? Math.ceil(xhi) - 1 : xhi - step);
    if (integer) {
      lo = Math.ceil(lo);
      hi = Math.floor(hi);
    }
    if (lo > hi) throw new Unsatisfiable(`${at}: no ${integer ? 'integer' : 'number'} lies between the minimum and the maximum`);
    if (lo === -Infinity && hi === Infinity) return [0, 100];
    if (lo === -Infinity) return [hi - 100, hi];
    if (hi === Infinity) return [lo, lo + 100];
    return [lo, hi];
  }

  private integer(s: Record<string, unknown>, at: string): number {
    const [lo, hi] = this.bounds(s, at, true);
    const m = num(s.multipleOf);
    if (m !== undefined && m > 0) {
      const first = Math.ceil(lo / m);
      const last = Math.floor(hi / m);
      if (first > last) throw new Unsatisfiable(`${at}: no multiple of ${m} lies between the minimum and the maximum`);
      return (first + Math.floor(this.rand() * Math.min(last - first + 1, 100))) * m;
    }
    return lo + Math.floor(this.rand() * Math.min(hi - lo + 1, 101));
  }

  private number(s: Record<string, unknown>, at: string): number {
    const [lo, hi] = this.bounds(s, at, false);
    const m = num(s.multipleOf);
    if (m !== undefined && m > 0) {
      const first = Math.ceil(lo / m);
      const last = Math.floor(hi / m);
      if (first > last) throw new Unsatisfiable(`${at}: no multiple of ${m} lies between the minimum and the maximum`);
      return Number(((first + Math.floor(this.rand() * Math.min(last - first + 1, 100))) * m).toPrecision(12));
    }
    const x = lo + this.rand() * (hi - lo);
    const rounded = Math.round(x * 100) / 100; // two decimals, like a model writes them, when the bounds allow
    return rounded >= lo && rounded <= hi ? rounded : x;
  }

  private string(s: Record<string, unknown>, at: string): string {
    const min = num(s.minLength) ?? 0;
    const max = num(s.maxLength) ?? Infinity;
    if (min > max) throw new Unsatisfiable(`${at}: minLength ${min} is above maxLength ${max}`);
    const format = typeof s.format === 'string' ? this.formatted(s.format) : undefined;
    if (format !== undefined) {
      if (format.length < min || format.length > max) throw new Unsatisfiable(`${at}: a ${String(s.format)} string cannot be ${min}–${max} characters long`);
      return format;
    }
    if (typeof s.pattern === 'string') return this.patterned(s.pattern, min, max, at);
    return this.text(min, max);
  }

  /** Words, at least `min` and at most `max` characters (code points; the words are ASCII). */
  private text(min: number, max: number): string {
    const target = Math.min(max, Math.max(min, 3 + Math.floor(this.rand() * 30)));
    // Whole words while they fit; a word is cut only to reach minLength within maxLength.
    let out = '';
    for (;;) {
      const w = pick(this.rand, WORDS);
      const next = out ? `${out} ${w}` : w;
      if (next.length > target) {
        if (out.length < min) out = next.slice(0, max);
        break;
      }
      out = next;
    }
    while (out.length < min) out += 'a';
    return out;
  }

  /** No regex inversion here: candidates a model would plausibly write, the first that matches. */
  private patterned(pattern: string, min: number, max: number, at: string): string {
    let re: RegExp;
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      throw new Unsatisfiable(`${at}: pattern is not a valid regular expression`);
    }
    const w = pick(this.rand, WORDS);
    const d = String(Math.floor(this.rand() * 1000));
    const candidates = [w, w.toUpperCase(), w[0]!.toUpperCase() + w.slice(1), d, `${w}-${d}`, `${w}_${d}`, `${w}${d}`, `${w.toUpperCase()}-${d}`,
      `${w}@example.com`, `https://example.com/${w}`, this.formatted('date')!, this.formatted('uuid')!, `+1${d.padStart(3, '0')}5550100`, ''];
    const hit = candidates.find((c) => c.length >= min && c.length <= max && re.test(c));
    if (hit === undefined) throw new Unsatisfiable(`${at}: the simulator cannot write a string matching pattern ${JSON.stringify(pattern)}`);
    return hit;
  }

  private formatted(format: string): string | undefined {
    const r = this.rand;
    const two = (n: number) => String(n).padStart(2, '0');
    const day = new Date(Date.UTC(2020 + Math.floor(r() * 6), Math.floor(r() * 12), 1 + Math.floor(r() * 28), Math.floor(r() * 24), Math.floor(r() * 60), Math.floor(r() * 60)));
    const hex = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join('');
    const w = pick(r, WORDS);
    switch (format) {
      case 'date-time': return day.toISOString().replace(/\.\d{3}Z$/, 'Z');
      case 'date': return day.toISOString().slice(0, 10);
      case 'time': return `${two(day.getUTCHours())}:${two(day.getUTCMinutes())}:${two(day.getUTCSeconds())}Z`;
      case 'duration': return `P${1 + Math.floor(r() * 9)}DT${Math.floor(r() * 24)}H`;
      case 'email': case 'idn-email': return `${w}.${pick(r, WORDS)}@example.com`;
      case 'hostname': case 'idn-hostname': return `${w}.example.com`;
      case 'ipv4': return Array.from({ length: 4 }, () => Math.floor(r() * 256)).join('.');
      case 'ipv6': return `2001:db8::${hex(4)}`;
      case 'uri': case 'url': case 'iri': return `https://example.com/${w}`;
      case 'uri-reference': case 'iri-reference': return `/${w}`;
      case 'uuid': return `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(r, ['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`;
      case 'regex': return '^[a-z]+$';
      case 'json-pointer': return `/${w}`;
      default: return undefined;
    }
  }

  private array(s: Record<string, unknown>, at: string, depth: number): unknown[] {
    const min = num(s.minItems) ?? 0;
    const max = num(s.maxItems) ?? Infinity;
    if (min > max) throw new Unsatisfiable(`${at}: minItems ${min} is above maxItems ${max}`);
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems as Schema[] : Array.isArray(s.items) ? s.items as Schema[] : [];
    const rest = (Array.isArray(s.items) ? s.additionalItems : s.items) as Schema | undefined;
    const lean = depth >= LEAN_DEPTH;
    let len = Math.min(max, Math.max(min, lean ? 0 : 1 + Math.floor(this.rand() * 3)));
    if (rest === false) {
      if (min > prefix.length) throw new Unsatisfiable(`${at}: minItems ${min} needs more items than the schema allows`);
      len = Math.min(len, prefix.length);
    }
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < len; i++) {
      const item = i < prefix.length ? prefix[i]! : rest ?? true;
      let v = this.value(item, `${at}/items`, depth + 1);
      if (s.uniqueItems === true) {
        for (let tries = 0; seen.has(JSON.stringify(v)) && tries < 20; tries++) v = this.value(item, `${at}/items`, depth + 1);
        if (seen.has(JSON.stringify(v))) {
          if (i >= min) break; // enough already
          throw new Unsatisfiable(`${at}: cannot find ${min} distinct items (uniqueItems)`);
        }
        seen.add(JSON.stringify(v));
      }
      out.push(v);
    }
    return out;
  }

  private object(s: Record<string, unknown>, at: string, depth: number): Record<string, unknown> {
    const props = isObj(s.properties) ? s.properties as Record<string, Schema> : {};
    const required = Array.isArray(s.required) ? (s.required as unknown[]).map(String) : [];
    const extra = s.additionalProperties as Schema | undefined;
    const maxProps = num(s.maxProperties) ?? Infinity;
    if (required.length > maxProps) throw new Unsatisfiable(`${at}: ${required.length} required properties are more than maxProperties ${maxProps}`);
    const out: Record<string, unknown> = {};
    const lean = depth >= LEAN_DEPTH;
    for (const name of Object.keys(props)) {
      const isRequired = required.includes(name);
      if (!isRequired && (lean || this.rand() < 0.3 || required.length + Object.keys(out).length >= maxProps)) continue;
      try {
        out[name] = this.value(props[name]!, `${at}/properties/${name}`, depth + 1);
      } catch (e) {
        if (isRequired || !(e instanceof Unsatisfiable)) throw e; // an optional property that cannot be filled is left out
      }
    }
    for (const name of required) {
      if (name in out) continue;
      if (extra === false) throw new Unsatisfiable(`${at}: required property "${name}" is not among properties, and additionalProperties is false`);
      out[name] = this.value(isObj(extra) ? extra : true, `${at}/additionalProperties`, depth + 1);
    }
    const min = num(s.minProperties) ?? 0;
    if (min > maxProps) throw new Unsatisfiable(`${at}: minProperties ${min} is above maxProperties ${maxProps}`);
    for (const name of Object.keys(props)) {
      if (Object.keys(out).length >= min) break;
      if (!(name in out)) out[name] = this.value(props[name]!, `${at}/properties/${name}`, depth + 1);
    }
    for (let i = 0; Object.keys(out).length < min; i++) {
      if (extra === false) throw new Unsatisfiable(`${at}: minProperties ${min} needs more properties than the schema allows`);
      out[`${pick(this.rand, WORDS)}_${i}`] = this.value(isObj(extra) ? extra : true, `${at}/additionalProperties`, depth + 1);
    }
    return out;
  }
}

/** How much a branch leans on references (a recursive branch has some; null or a leaf has none). */
function refWeight(s: Schema | undefined): number {
  return s !== undefined && JSON.stringify(s).includes('"$ref"') ? 1 : 0;
}
