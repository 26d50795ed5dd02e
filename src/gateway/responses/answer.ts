// A chat completion as a Responses API response object: output items (a message with
// output_text, function calls), status, usage in the Responses names, and the request's
// settings echoed as OpenAI echoes them. Pure; the stream (stream.ts) builds the same items.
import type { Chunk } from '../gateway.ts';
import type { Item, ResponsesBody } from './request.ts';

/**
 * The ids of one answer, from its response id (`resp_…`, made by the caller: an HTTP
 * upstream's chat id need not be unique, and a stored response's id must be).
 */
export function responseIds(responseId: string) {
  const rid = responseId.replace(/^resp_/, '');
  return { response: responseId, message: `msg_${rid}`, call: (i: number) => `fc_${rid}_${i}` };
}

export type ResponseIds = ReturnType<typeof responseIds>;

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed' | 'incomplete') {
  return { id, type: 'message', status, role: 'assistant', content: status === 'in_progress' ? [] : [outputText(text)] };
}

export function outputText(text: string) {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: 'in_progress' | 'completed' | 'incomplete') {
  return { id, type: 'function_call', status, call_id: callId, name, arguments: args };
}

interface ChatUsage { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null; completion_tokens_details?: { reasoning_tokens?: number } | null }

export function responsesUsage(u: ChatUsage | null | undefined) {
  const input = u?.prompt_tokens ?? 0;
  const output = u?.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u?.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u?.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: input + output,
  };
}

export type Status = 'in_progress' | 'completed' | 'incomplete';

/** The response object around some output: what the request asked for, echoed. */
export function envelope(body: ResponsesBody, ids: { response: string }, createdAt: number, model: unknown, status: Status, output: unknown[], usage: ReturnType<typeof responsesUsage> | null) {
  return {
    id: ids.response,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: (body.tools ?? []).map((t) => ({ strict: true, description: null, parameters: null, ...t })),
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage,
    user: body.user ?? null,
  };
}

type ChatChoice = {
  message?: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
  finish_reason?: unknown;
};

/** A whole chat completion as a response object, and its output items (for the stored conversation). */
export function responseObject(completion: Chunk, body: ResponsesBody, ids: ResponseIds, createdAt: number): { response: ReturnType<typeof envelope>; output: Item[] } {
  const choice = ((completion.choices as ChatChoice[] | undefined) ?? [])[0] ?? {};
  const status: Status = choice.finish_reason === 'length' ? 'incomplete' : 'completed';
  const output: Item[] = [];
  const text = choice.message?.content;
  if (typeof text === 'string' && (text !== '' || !choice.message?.tool_calls?.length)) output.push(messageItem(ids.message, text, status));
  for (const [i, c] of (choice.message?.tool_calls ?? []).entries()) output.push(functionCallItem(ids.call(i), c.id, c.function.name, c.function.arguments, status));
  return { response: envelope(body, ids, createdAt, completion.model, status, output, responsesUsage(completion.usage as ChatUsage | undefined)), output };
}
