// An OpenAI Responses request (POST /openai/v1/responses) as the chat-completions request the
// pipeline runs: every upstream today speaks chat completions. Pure. Input items (and a
// stored conversation, which is input items too) become chat messages; what has no chat
// equivalent is refused here in OpenAI's words, naming the Responses field.
import { badRequest } from '../errors.ts';
import type { ModelBody } from '../upstreams/upstream.ts';

export type Item = { type?: string } & Record<string, unknown>;
type Part = { type?: string; text?: unknown; image_url?: unknown; file_id?: unknown };

export interface FunctionTool { type: string; name?: string; description?: string | null; parameters?: unknown; strict?: boolean | null }
export type ToolChoice = 'auto' | 'none' | 'required' | { type: string; name?: string };
export type TextFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name?: string; schema?: unknown; strict?: boolean | null; description?: string };

export interface ResponsesBody {
  model: string;
  input: string | Item[];
  instructions?: string | null;
  tools?: FunctionTool[];
  tool_choice?: ToolChoice;
  text?: { format?: TextFormat };
  max_output_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  parallel_tool_calls?: boolean | null;
  previous_response_id?: string | null;
  store?: boolean | null;
  stream?: boolean | null;
  metadata?: Record<string, string> | null;
  user?: string;
}

function refuse(field: string, message: string): never {
  throw badRequest(message, { field, rule: 'responses' });
}

/** The input as items: a string is one user message. */
export function inputItems(input: ResponsesBody['input']): Item[] {
  return typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
}

type ChatMessage = Record<string, unknown> & { role: string };

/**
 * Lenient: the chat body only measures a request that goes to its upstream as it is (a
 * Responses-speaking upstream, ModelCall.native): what chat cannot carry is kept as text
 * (so its size still counts) instead of refused.
 */
let lenient = false;

/** Input items as chat messages. Function calls join the assistant message before them, as chat carries them. */
export function chatMessages(items: Item[], field = 'input'): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const [i, item] of items.entries()) {
    const where = `${field}.${i}`;
    const type = item.type ?? 'message';
    if (type === 'message') out.push(message(item, where));
    else if (type === 'function_call') {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string') refuse(where, `Missing required parameter: '${where}.call_id' and '${where}.name'.`);
      const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: typeof item.arguments === 'string' ? item.arguments : '{}' } };
      const last = out.at(-1);
      if (last?.role === 'assistant') last.tool_calls = [...((last.tool_calls as unknown[] | undefined) ?? []), call];
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') refuse(`${where}.call_id`, `Missing required parameter: '${where}.call_id'.`);
      out.push({ role: 'tool', tool_call_id: item.call_id, content: typeof item.output === 'string' ? item.output : partsText(item.output) });
    } else if (lenient) out.push({ role: 'user', content: JSON.stringify(item) });
    else if (type !== 'reasoning') { // no chat upstream takes reasoning back: it is dropped
      refuse(`${where}.type`, `Invalid value: '${type}'. Supported input item types here are message, function_call, function_call_output.`);
    }
  }
  return out;
}

function partsText(parts: unknown): string {
  return Array.isArray(parts) ? (parts as Part[]).map((p) => (typeof p?.text === 'string' ? p.text : '')).join('') : '';
}

function message(item: Item, where: string): ChatMessage {
  const role = item.role;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    refuse(`${where}.role`, `Invalid value: '${String(role)}'. Supported values are: 'user', 'assistant', 'system', and 'developer'.`);
  }
  // developer messages go as system: chat templates of open models (vLLM, SGLang) know no developer role
  const chatRole = role === 'developer' ? 'system' : role;
  if (typeof item.content === 'string') return { role: chatRole, content: item.content };
  if (!Array.isArray(item.content)) return refuse(`${where}.content`, `Missing required parameter: '${where}.content'.`);
  if (role === 'assistant') return { role, content: partsText(item.content) }; // output_text and refusal parts
  const parts = (item.content as Part[]).map((p, j) => {
    if (p?.type === 'input_text' || p?.type === 'output_text') return { type: 'text', text: String(p.text ?? '') };
    if (p?.type === 'input_image' && typeof p.image_url === 'string') return { type: 'image_url', image_url: { url: p.image_url } };
    if (lenient) return { type: 'text', text: JSON.stringify(p) };
    return refuse(`${where}.content.${j}.type`, `Invalid value: '${String(p?.type)}'. Supported content types here are input_text and input_image (by URL).`);
  });
  return { role: chatRole, content: parts.length === 1 && parts[0]!.type === 'text' ? (parts[0] as { text: string }).text : parts };
}

function chatTools(tools: FunctionTool[]): unknown[] {
  return tools.map((t, i) => {
    if (t.type !== 'function' && lenient) {
      return { type: 'function', function: { name: `builtin_${i}`, parameters: { type: 'object', description: JSON.stringify(t) } } };
    }
    if (t.type !== 'function') refuse(`tools.${i}.type`, `Tools of type '${t.type}' are not supported by this gateway; use function tools.`);
    if (typeof t.name !== 'string') refuse(`tools.${i}.name`, `Missing required parameter: 'tools[${i}].name'.`);
    const fn: Record<string, unknown> = { name: t.name };
    if (t.description !== undefined && t.description !== null) fn.description = t.description;
    if (t.parameters !== undefined && t.parameters !== null) fn.parameters = t.parameters;
    if (t.strict !== undefined && t.strict !== null) fn.strict = t.strict;
    return { type: 'function', function: fn };
  });
}

function chatToolChoice(c: ToolChoice): unknown {
  if (typeof c === 'string') return c;
  if (c.type === 'function') return { type: 'function', function: { name: c.name } };
  if (lenient) return 'auto';
  return refuse('tool_choice.type', `Invalid value: '${c.type}'. Supported tool_choice here: auto, none, required, or {type: "function", name}.`);
}

function responseFormat(f: TextFormat): unknown {
  if (f.type === 'json_schema') {
    if (typeof f.name !== 'string') refuse('text.format.name', "Missing required parameter: 'text.format.name'.");
    if (f.schema === undefined || f.schema === null) refuse('text.format.schema', "Missing required parameter: 'text.format.schema'.");
    const { type: _type, ...rest } = f;
    return { type: 'json_schema', json_schema: rest };
  }
  return f.type === 'json_object' ? { type: 'json_object' } : undefined;
}

/**
 * The chat body for a Responses request; `previous` is the stored conversation it continues
 * (input items). Instructions are not carried over from a previous response (OpenAI's rule).
 * `opts.lenient`: only to measure a request sent on as it is (see `lenient`).
 */
export function chatRequest(body: ResponsesBody, previous: Item[] = [], opts: { lenient?: boolean } = {}): ModelBody {
  lenient = opts.lenient === true;
  try {
    return translate(body, previous);
  } finally {
    lenient = false;
  }
}

function translate(body: ResponsesBody, previous: Item[]): ModelBody {
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') messages.push({ role: 'system', content: body.instructions });
  messages.push(...chatMessages(previous, 'previous_response_id'), ...chatMessages(inputItems(body.input)));
  const out: ModelBody = { model: body.model, messages };
  if (body.max_output_tokens !== undefined && body.max_output_tokens !== null) out.max_completion_tokens = body.max_output_tokens;
  if (body.temperature !== undefined && body.temperature !== null) out.temperature = body.temperature;
  if (body.top_p !== undefined && body.top_p !== null) out.top_p = body.top_p;
  if (typeof body.user === 'string') out.user = body.user;
  if (body.tools?.length) {
    out.tools = chatTools(body.tools);
    if (body.tool_choice !== undefined) out.tool_choice = chatToolChoice(body.tool_choice);
    if (body.parallel_tool_calls !== undefined && body.parallel_tool_calls !== null) out.parallel_tool_calls = body.parallel_tool_calls;
  }
  const format = body.text?.format ? responseFormat(body.text.format) : undefined;
  if (format) out.response_format = format;
  if (body.stream === true) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}
