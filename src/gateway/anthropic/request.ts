// Anthropic's Messages request (POST /anthropic/v1/messages) as the chat-completions request
// the pipeline runs. Pure: no HTTP, no store. What has no chat equivalent is refused here, in
// Anthropic's words and with its field names, before the pipeline sees the request.
import { badRequest } from '../errors.ts';
import type { ModelBody } from '../upstreams/upstream.ts';

export interface TextBlock { type: 'text'; text: string }
interface ImageBlock { type: 'image'; source: { type: string; media_type?: string; data?: string; url?: string } }
export interface ToolUseBlock { type: 'tool_use'; id: string; name: string; input: unknown }
interface ToolResultBlock { type: 'tool_result'; tool_use_id: string; content?: string | Array<{ type: string; text?: string }>; is_error?: boolean }
type Block = TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | { type: string };

export interface AnthropicMessage { role: 'user' | 'assistant'; content: string | Block[] }
export interface AnthropicTool { type?: string; name: string; description?: string; input_schema?: unknown }
export type AnthropicToolChoice = { type: 'auto' | 'any' | 'none'; disable_parallel_tool_use?: boolean } | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

export interface MessagesBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | TextBlock[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  metadata?: { user_id?: string | null };
  stream?: boolean;
}

function refuse(field: string, message: string): never {
  throw badRequest(message, { field, rule: 'anthropic' });
}

type ChatMessage = Record<string, unknown>;

/** The system prompt and the messages as chat messages: tool results become `tool` messages. */
export function chatMessages(body: Pick<MessagesBody, 'system' | 'messages'>): ChatMessage[] {
  const out: ChatMessage[] = [];
  const system = typeof body.system === 'string' ? body.system : body.system?.map((b) => b.text).join('\n');
  if (system) out.push({ role: 'system', content: system });
  for (const [i, m] of body.messages.entries()) {
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'assistant') out.push(assistantMessage(blocks, i));
    else out.push(...userMessages(blocks, i));
  }
  return out;
}

/** The fields a block of a known type needs (the route schema checks only `type`). */
function checkBlock(b: Block, where: string): void {
  const need = (field: string, ok: boolean) => {
    if (!ok) refuse(`${where}.${field}`, `${where}.${field}: Field required`);
  };
  const x = b as { text?: unknown; id?: unknown; name?: unknown; tool_use_id?: unknown; content?: unknown };
  if (b.type === 'text') need('text', typeof x.text === 'string');
  if (b.type === 'tool_use') {
    need('id', typeof x.id === 'string' && x.id !== '');
    need('name', typeof x.name === 'string' && x.name !== '');
  }
  if (b.type === 'tool_result') {
    need('tool_use_id', typeof x.tool_use_id === 'string');
    need('content', x.content === undefined || typeof x.content === 'string' || Array.isArray(x.content));
  }
  if (b.type === 'image') need('source', typeof (b as ImageBlock).source === 'object' && (b as ImageBlock).source !== null);
}

function assistantMessage(blocks: Block[], i: number): ChatMessage {
  let text = '';
  const calls: unknown[] = [];
  for (const [j, b] of blocks.entries()) {
    checkBlock(b, `messages.${i}.content.${j}`);
    if (b.type === 'text') text += (b as TextBlock).text;
    else if (b.type === 'tool_use') {
      const u = b as ToolUseBlock;
      calls.push({ id: u.id, type: 'function', function: { name: u.name, arguments: JSON.stringify(u.input ?? {}) } });
    } else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') { // no chat upstream takes thinking back: it is dropped
      refuse(`messages.${i}.content.${j}.type`, `messages.${i}.content.${j}: content blocks of type '${b.type}' are not supported in assistant messages by this gateway`);
    }
  }
  return calls.length ? { role: 'assistant', content: text || null, tool_calls: calls } : { role: 'assistant', content: text };
}

/**
 * A user turn: its tool results first (as `tool` messages, which must follow the assistant's
 * calls directly), then what else it says as one user message.
 */
function userMessages(blocks: Block[], i: number): ChatMessage[] {
  const tools: ChatMessage[] = [];
  const parts: unknown[] = [];
  for (const [j, b] of blocks.entries()) {
    checkBlock(b, `messages.${i}.content.${j}`);
    if (b.type === 'text') parts.push({ type: 'text', text: (b as TextBlock).text });
    else if (b.type === 'image') parts.push({ type: 'image_url', image_url: { url: imageUrl(b as ImageBlock, `messages.${i}.content.${j}`) } });
    else if (b.type === 'tool_result') {
      const r = b as ToolResultBlock;
      const text = typeof r.content === 'string' ? r.content : (r.content ?? []).map((c) => (typeof c?.text === 'string' ? c.text : '')).join('\n');
      // chat has no error flag on a tool result: the model reads it in the text
      tools.push({ role: 'tool', tool_call_id: r.tool_use_id, content: r.is_error ? `Error: ${text}` : text });
    } else refuse(`messages.${i}.content.${j}.type`, `messages.${i}.content.${j}: content blocks of type '${b.type}' are not supported by this gateway`);
  }
  if (!parts.length) return tools;
  const only = parts.length === 1 && (parts[0] as { type: string }).type === 'text';
  return [...tools, { role: 'user', content: only ? (parts[0] as { text: string }).text : parts }];
}

function imageUrl(b: ImageBlock, where: string): string {
  const s = b.source;
  if (s.type === 'base64' && typeof s.data === 'string') return `data:${s.media_type ?? 'image/png'};base64,${s.data}`;
  if (s.type === 'url' && typeof s.url === 'string') return s.url;
  return refuse(`${where}.source`, `${where}.source: an image source is {type: "base64", media_type, data} or {type: "url", url}`);
}

/** Anthropic's tools as function tools; server tools (bash, web search, …) run at Anthropic only. */
function chatTools(tools: AnthropicTool[]): unknown[] {
  return tools.map((t, i) => {
    if (t.type !== undefined && t.type !== 'custom') refuse(`tools.${i}.type`, `tools.${i}: tools of type '${t.type}' are not supported by this gateway; define the tool with name, description and input_schema`);
    if (t.input_schema === undefined) refuse(`tools.${i}.input_schema`, `tools.${i}.input_schema: Field required`);
    return { type: 'function', function: { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: t.input_schema } };
  });
}

function chatToolChoice(c: AnthropicToolChoice): unknown {
  if (c.type === 'tool' && typeof c.name !== 'string') refuse('tool_choice.name', 'tool_choice.name: Field required');
  if (c.type === 'tool') return { type: 'function', function: { name: c.name } };
  return c.type === 'any' ? 'required' : c.type;
}

/** The chat-completions body for a Messages request. Streams ask for the usage chunk (message_delta reports it). */
export function chatRequest(body: MessagesBody): ModelBody {
  const out: ModelBody = { model: body.model, messages: chatMessages(body), max_tokens: body.max_tokens };
  if (body.stop_sequences?.length) out.stop = body.stop_sequences;
  if (body.temperature !== undefined) out.temperature = body.temperature;
  if (body.top_p !== undefined) out.top_p = body.top_p;
  if (body.top_k !== undefined) out.top_k = body.top_k; // vLLM's and SGLang's sampling parameter
  if (typeof body.metadata?.user_id === 'string') out.user = body.metadata.user_id;
  if (body.tools?.length) {
    out.tools = chatTools(body.tools);
    if (body.tool_choice) {
      out.tool_choice = chatToolChoice(body.tool_choice);
      if (body.tool_choice.disable_parallel_tool_use === true && body.tool_choice.type !== 'none') out.parallel_tool_calls = false;
    }
  } else if (body.tool_choice && body.tool_choice.type !== 'none' && body.tool_choice.type !== 'auto') {
    refuse('tool_choice', `tool_choice: '${body.tool_choice.type}' needs tools`);
  }
  if (body.stream === true) {
    out.stream = true;
    out.stream_options = { include_usage: true };
  }
  return out;
}
