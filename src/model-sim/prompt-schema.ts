// JSON mode (`response_format: {type: "json_object"}`) carries no schema, so prompts written
// for it say the shape in words and a schema: "answer with an object matching this schema:
// {...}", often in a ```json fence. A model follows that schema; so does the simulator: this
// finds it. The latest system or user message that holds one wins (a later instruction
// overrides an earlier one); within a message, a ```json fence before bare text, and the first
// object that is a schema: a JSON object with `properties`, or a `type` of object or array.
import { contentText } from './tokenizer.ts';

/** Candidate `{` positions tried per message: bounds the work on a long prompt full of braces. */
const MAX_CANDIDATES = 256;

type Message = { role?: unknown; content?: unknown };

/** The JSON Schema the prompt asks the answer to follow, or undefined. */
export function schemaInPrompt(messages: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m?.role !== 'user' && m?.role !== 'system' && m?.role !== 'developer') continue;
    const found = schemaInText(contentText(m.content));
    if (found) return found;
  }
  return undefined;
}

function schemaInText(text: string): Record<string, unknown> | undefined {
  for (const fence of text.matchAll(/```(?:json)?[ \t]*\r?\n([\s\S]*?)```/g)) {
    const found = firstSchema(fence[1]!);
    if (found) return found;
  }
  return firstSchema(text);
}

function firstSchema(text: string): Record<string, unknown> | undefined {
  let tried = 0;
  for (let at = text.indexOf('{'); at !== -1 && tried < MAX_CANDIDATES; tried++) {
    const end = objectEnd(text, at);
    if (end === -1) return undefined; // never closed: no later brace closes either (each scan stays linear)
    const value = parse(text.slice(at, end));
    if (isSchema(value)) return value;
    // Inside an object that is no schema (an example answer) a schema may still be nested: go on from the next brace.
    at = text.indexOf('{', at + 1);
  }
  return undefined;
}

/** The index just past the `}` closing the object opened at `start` (strings skipped), or -1. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return i + 1;
  }
  return -1;
}

function parse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

function isSchema(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  if (o.properties && typeof o.properties === 'object' && !Array.isArray(o.properties)) return true;
  return o.type === 'object' || (o.type === 'array' && o.items !== undefined);
}
