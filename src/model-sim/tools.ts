// Which tools the simulator calls, and with what arguments. The rule (documented in
// src/gateway/README.md):
//  - a tool "fits" when the last message is the user's and names it: the function's name
//    appears in its text, case-insensitively, not inside a longer identifier;
//  - tool_choice "none" (or no function tools): no call;
//  - "auto" (the default): the tools that fit; none fit, or the last message is a tool
//    result (or anything but the user's), means a text answer;
//  - "required": the tools that fit, or the first function tool when none does;
//  - {type: "function", function: {name}}: that function, once;
//  - parallel_tool_calls (default true): every tool that fits, in the order of `tools`;
//    false: the first of them.
// Arguments are a JSON value generated from the function's `parameters` (json.ts).
import { AppError } from '../lib/errors.ts';
import { contentText } from './tokenizer.ts';
import { jsonFor, Unsatisfiable } from './json.ts';
import type { SimBody } from './body.ts';

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

interface FunctionTool {
  name: string;
  parameters?: unknown;
}

function functionsOf(body: SimBody): FunctionTool[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.filter((t) => t?.type === 'function' && typeof t.function?.name === 'string').map((t) => t.function as FunctionTool);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The functions named by the last message, when it is the user's. */
function fitting(body: SimBody, functions: FunctionTool[]): FunctionTool[] {
  const messages = body.messages as Array<{ role?: unknown; content?: unknown }>;
  const last = messages[messages.length - 1];
  if (last?.role !== 'user') return [];
  const text = contentText(last.content);
  return functions.filter((f) => new RegExp(`(?<![\\w-])${escapeRe(f.name)}(?![\\w-])`, 'i').test(text));
}

/** The functions this request makes the simulator call (none: answer in text). */
export function toolsToCall(body: SimBody): FunctionTool[] {
  const functions = functionsOf(body);
  const choice = body.tool_choice ?? 'auto';
  if (functions.length === 0 || choice === 'none') return [];
  if (typeof choice === 'object' && choice !== null) {
    const named = functions.find((f) => f.name === choice.function?.name);
    return named ? [named] : [];
  }
  let calls = fitting(body, functions);
  if (choice === 'required' && calls.length === 0) calls = [functions[0]!];
  return body.parallel_tool_calls === false ? calls.slice(0, 1) : calls;
}

/** The calls, with arguments drawn from each function's parameters by `rand`. */
export function toolCalls(functions: FunctionTool[], rand: () => number): ToolCall[] {
  return functions.map((f) => {
    let args: unknown;
    try {
      args = jsonFor(f.parameters ?? { type: 'object', properties: {} }, rand);
    } catch (e) {
      if (!(e instanceof Unsatisfiable)) throw e;
      throw new AppError('INVALID_REQUEST_BODY', `Invalid schema for function '${f.name}': ${e.message}`, { field: 'tools', rule: 'satisfiable parameters' });
    }
    const id = `call_${Array.from({ length: 24 }, () => Math.floor(rand() * 36).toString(36)).join('')}`;
    return { id, name: f.name, arguments: JSON.stringify(args) };
  });
}
