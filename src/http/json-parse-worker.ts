// The worker of json-off-thread.ts: decodes and parses a request body, with the checks
// Fastify's default JSON parser makes (secure-json-parse with protoAction and
// constructorAction 'error': an own `__proto__` key, or a `constructor` object with an own
// `prototype`, refuses the body) and the nesting limit (lib/json-depth.ts), checked before
// parsing, and posts the value back.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { jsonTooDeep } from '../lib/json-depth.ts';

export interface ParseRequest {
  id: number;
  /** the body, in order: one block when its length was known up front (json-body.ts) */
  blocks: Uint8Array[];
}

/**
 * `value` when parsed; `empty` for a body of whitespace only; `tooDeep` past the nesting
 * limit; `invalid` for anything else JSON.parse refuses; `failed` when parsing or answering
 * threw anyway (the body is the one thing this thread was working on).
 */
export type ParseOutcome = { value: unknown } | { empty: true } | { tooDeep: true } | { invalid: true } | { failed: true };
export type ParseReply = ParseOutcome & { id: number };

const has = (o: object, k: string) => Object.hasOwn(o, k);

/** secure-json-parse's filter() in 'error' mode: true when the value carries a forbidden prototype property. */
export function poisoned(root: unknown): boolean {
  let next: unknown[] = [root];
  while (next.length) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (!node || typeof node !== 'object') continue;
      if (has(node, '__proto__')) return true;
      const c = (node as { constructor?: unknown }).constructor;
      if (has(node, 'constructor') && c !== null && typeof c === 'object' && has(c, 'prototype')) return true;
      for (const key in node) {
        const v = (node as Record<string, unknown>)[key];
        if (v && typeof v === 'object') next.push(v);
      }
    }
  }
  return false;
}

export function parseBody(blocks: Uint8Array[]): ParseOutcome {
  // joined before decoding: a character's bytes may straddle two blocks
  const bytes = blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks);
  const text = new TextDecoder().decode(bytes); // a leading BOM is dropped, as secure-json-parse does
  if (text.trim() === '') return { empty: true };
  if (jsonTooDeep(text)) return { tooDeep: true };
  try {
    const value: unknown = JSON.parse(text);
    return poisoned(value) ? { invalid: true } : { value };
  } catch {
    return { invalid: true };
  }
}

if (parentPort) {
  // Linux keeps a nice value per thread: this one yields the cores to the event loop's thread
  // when both want one (parsing a big body may wait; the other requests should not).
  try {
    setPriority(10);
  } catch { /* not permitted here: parse at the usual priority */ }
}

parentPort?.on('message', (m: ParseRequest) => {
  // nothing a body does may end this thread: what throws fails that body alone
  let reply: ParseOutcome;
  try {
    reply = parseBody(m.blocks);
  } catch {
    reply = { failed: true };
  }
  try {
    parentPort!.postMessage({ id: m.id, ...reply });
  } catch {
    parentPort!.postMessage({ id: m.id, failed: true }); // the value could not be cloned
  }
});
