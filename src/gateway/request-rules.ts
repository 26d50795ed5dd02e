// Rules of a model request that span fields, judged by the gateway for every upstream before
// admission (the route schemas in gateway/openai/schemas.ts judge each field alone:
// types, ranges, n 1–128, top_logprobs 0–20, at most 4 stop sequences). Each refusal is
// the one OpenAI gives, in its words where they are known: 400 INVALID_REQUEST_BODY naming
// the field (OpenAI's `param`).
import { compileSchema, SchemaError } from '../lib/json-schema.ts';
import type { Endpoint, ModelBody } from './upstreams/upstream.ts';
import { badRequest } from './errors.ts';

function refuse(field: string, rule: string, message: string): never {
  throw badRequest(message, { field, rule });
}

/** Throws INVALID_REQUEST_BODY when the request breaks a rule OpenAI enforces. */
export function checkRequestRules(endpoint: Endpoint, body: ModelBody): void {
  if (endpoint !== 'chat.completions' && endpoint !== 'completions') return;
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    refuse('stream_options', 'only with stream', "The 'stream_options' parameter is only allowed when 'stream' is enabled.");
  }
  if (endpoint !== 'chat.completions') return;
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.logprobs !== true) {
    refuse('top_logprobs', 'only with logprobs', "Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is used.");
  }
  checkTools(body);
  checkResponseFormat(body);
  checkMessages(body);
}

function checkTools(body: ModelBody): void {
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : [];
  if (body.tool_choice !== undefined && body.tool_choice !== null && tools.length === 0) {
    refuse('tool_choice', 'only with tools', "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
  }
  if (body.parallel_tool_calls !== undefined && body.parallel_tool_calls !== null && tools.length === 0) {
    refuse('parallel_tool_calls', 'only with tools', "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.");
  }
  const names = new Set<string>();
  for (const [i, t] of (tools as Array<{ type?: unknown; function?: { name?: unknown; parameters?: unknown } }>).entries()) {
    if (t.type !== 'function') continue; // other tool types reach upstreams that know them
    if (!t.function) refuse(`tools.${i}.function`, 'is required', `Missing required parameter: 'tools[${i}].function'.`);
    const name = String(t.function.name);
    if (names.has(name)) refuse(`tools.${i}.function.name`, 'unique', `Invalid 'tools': function name '${name}' is used more than once.`);
    names.add(name);
    const params = t.function.parameters;
    if (params === undefined) continue; // a function without parameters takes none
    const where = `tools.${i}.function.parameters`;
    if (params === null || typeof params !== 'object' || Array.isArray(params) || (params as { type?: unknown }).type !== 'object') {
      refuse(where, 'object schema', `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${typeName(params)}"'.`);
    }
    compiles(params, where, `Invalid schema for function '${name}'`);
  }
  const choice = body.tool_choice;
  if (choice !== null && typeof choice === 'object') {
    const wanted = choice.function?.name;
    if (choice.type === 'function' && !names.has(String(wanted))) {
      refuse('tool_choice', 'among tools', `Invalid value for 'tool_choice': no function named '${String(wanted)}' was specified in the 'tools' parameter.`);
    }
  }
}

function typeName(params: unknown): string {
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) return String((params as { type?: unknown }).type ?? 'None');
  return Array.isArray(params) ? 'array' : params === null ? 'None' : typeof params;
}

function compiles(schema: unknown, field: string, what: string): void {
  try {
    compileSchema(schema);
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    refuse(field, e.rule ?? 'valid JSON Schema', `${what}: ${e.message}.`);
  }
}

function checkResponseFormat(body: ModelBody): void {
  const f = body.response_format;
  if (f?.type !== 'json_schema') return;
  const js = f.json_schema;
  if (js === undefined || js === null) refuse('response_format.json_schema', 'is required', "Missing required parameter: 'response_format.json_schema'.");
  if (js.schema === undefined || js.schema === null) {
    refuse('response_format.json_schema.schema', 'is required', "Missing required parameter: 'response_format.json_schema.schema'.");
  }
  compiles(js.schema, 'response_format.json_schema.schema', `Invalid schema for response_format '${String(js.name)}'`);
}

type Message = { role?: unknown; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown };

/**
 * Roles and their order: every tool message answers a tool call of the assistant message
 * before it (tool messages after one assistant message answer its calls), and every call of
 * an assistant message is answered before the conversation goes on.
 */
function checkMessages(body: ModelBody): void {
  const messages = body.messages as Message[];
  let open: Set<string> | undefined; // the calls of the last assistant message not yet answered
  let openAt = -1;
  const unanswered = () => {
    if (open?.size) {
      refuse(`messages.${openAt}`, 'tool calls answered', `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`);
    }
  };
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string') refuse(`messages.${i}.tool_call_id`, 'is required', `Missing required parameter: 'messages.[${i}].tool_call_id'.`);
      if (!open?.has(m.tool_call_id)) {
        refuse(`messages.${i}.role`, 'answers a tool call', `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (messages.[${i}].tool_call_id '${m.tool_call_id}' answers no call of it).`);
      }
      open.delete(m.tool_call_id);
      continue;
    }
    unanswered();
    open = undefined;
    if (m.role === 'assistant') {
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls as Array<{ id?: unknown }> : [];
      if (calls.length) {
        open = new Set(calls.map((c) => String(c.id)));
        openAt = i;
      } else if (m.content === undefined || m.content === null) {
        refuse(`messages.${i}.content`, 'is required', `Invalid value for 'messages.[${i}].content': an assistant message needs 'content' or 'tool_calls'.`);
      }
    } else if (m.content === undefined || m.content === null) {
      refuse(`messages.${i}.content`, 'is required', `Missing required parameter: 'messages.[${i}].content'.`);
    }
  }
  unanswered();
}
