// JSON.stringify for bodies that may be megabytes (a prompt forwarded to an upstream):
// small values are stringified at once; a big one is written in slices of about SLICE
// characters with a turn of the event loop between them, so serializing and encoding an 8 MB
// prompt (≈ 60 ms in one piece) never holds the loop for more than a millisecond or two.
// The bytes are exactly Buffer.from(JSON.stringify(value)) (json-encode.test.ts).
import { setImmediate as turn } from 'node:timers/promises';

/** Below this size (bytes of JSON) the value is stringified in one go. */
const BIG = 1 << 20;
const SLICE = 1 << 18;

/**
 * UTF-8 bytes of a value's JSON without building it: strings by Buffer.byteLength (quotes
 * and the JSON punctuation counted, escapes not). Linear in the value, a few milliseconds
 * for 8 MB of text where JSON.stringify + byteLength take ten times that.
 */
export function jsonBytes(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return Buffer.byteLength(value) + 2;
    case 'number':
    case 'boolean':
      return String(value).length;
    case 'object': {
      if (value === null) return 4;
      if (Array.isArray(value)) {
        let n = 2 + Math.max(0, value.length - 1);
        for (const v of value) n += v === undefined ? 4 : jsonBytes(v);
        return n;
      }
      let n = 2;
      let first = true;
      for (const k in value) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined || typeof v === 'function') continue;
        n += (first ? 0 : 1) + Buffer.byteLength(k) + 3 + jsonBytes(v);
        first = false;
      }
      return n;
    }
    default:
      return 0;
  }
}

/** UTF-8 JSON of a plain JSON value (what JSON.parse gives, plus plain objects and arrays). */
export async function encodeJson(value: unknown): Promise<Buffer> {
  if (jsonBytes(value) < BIG) return Buffer.from(JSON.stringify(value));
  const out: Buffer[] = [];
  let pending: string[] = [];
  let pendingChars = 0;
  const put = async (s: string): Promise<void> => {
    pending.push(s);
    pendingChars += s.length;
    if (pendingChars >= SLICE) {
      out.push(Buffer.from(pending.join('')));
      pending = [];
      pendingChars = 0;
      await turn();
    }
  };
  const walk = async (v: unknown): Promise<void> => {
    if (typeof v === 'string' && v.length > SLICE) {
      await put('"');
      for (let at = 0; at < v.length;) {
        let end = Math.min(v.length, at + SLICE);
        if (end < v.length && (v.charCodeAt(end - 1) & 0xfc00) === 0xd800) end++; // a surrogate pair stays whole
        await put(JSON.stringify(v.slice(at, end)).slice(1, -1));
        at = end;
      }
      await put('"');
      return;
    }
    if (v === null || typeof v !== 'object' || typeof (v as { toJSON?: unknown }).toJSON === 'function' || jsonBytes(v) < SLICE) {
      await put(JSON.stringify(v) ?? 'null');
      return;
    }
    if (Array.isArray(v)) {
      await put('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) await put(',');
        const x: unknown = v[i];
        await walk(x === undefined || typeof x === 'function' || typeof x === 'symbol' ? null : x);
      }
      await put(']');
      return;
    }
    await put('{');
    let first = true;
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
      await put(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      await walk(x);
    }
    await put('}');
  };
  await walk(value);
  if (pending.length) out.push(Buffer.from(pending.join('')));
  return out.length === 1 ? out[0]! : Buffer.concat(out);
}
