// A chat completion as Anthropic's Message: text and tool_use blocks, the stop reason in
// Anthropic's words, and usage with cached prompt tokens apart (Anthropic's input_tokens
// excludes cache reads; OpenAI's prompt_tokens includes them). Pure.
import type { Chunk } from '../gateway.ts';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

/**
 * Why the answer ended. A chat finish "stop" is a stop sequence when the upstream names the
 * one it met (`stop_reason`, as vLLM and the simulator do) and the request asked for it.
 */
export function stopReason(finish: unknown, matched: unknown, stopSequences: readonly string[] | undefined): { stop_reason: StopReason; stop_sequence: string | null } {
  if (finish === 'stop' && typeof matched === 'string' && stopSequences?.includes(matched)) return { stop_reason: 'stop_sequence', stop_sequence: matched };
  const reason: StopReason = finish === 'length' ? 'max_tokens'
    : finish === 'tool_calls' || finish === 'function_call' ? 'tool_use'
    : finish === 'content_filter' ? 'refusal' : 'end_turn';
  return { stop_reason: reason, stop_sequence: null };
}

interface ChatUsage { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null }

export function anthropicUsage(u: ChatUsage | null | undefined) {
  const cached = u?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: (u?.prompt_tokens ?? 0) - cached,
    output_tokens: u?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

/** The Message id for a chat completion id (`chatcmpl-<request>` → `msg_<request>`). */
export function messageId(chatId: unknown): string {
  return `msg_${String(chatId ?? '').replace(/^chatcmpl-/, '')}`;
}

/** A tool call's arguments as the `input` object; arguments cut by max_tokens are no JSON, and give `{}`. */
export function toolInput(args: unknown): unknown {
  try {
    const v = JSON.parse(String(args ?? ''));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

type ChatChoice = {
  message?: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
  finish_reason?: unknown;
  stop_reason?: unknown;
};

export function anthropicMessage(completion: Chunk, stopSequences: readonly string[] | undefined) {
  const choice = ((completion.choices as ChatChoice[] | undefined) ?? [])[0] ?? {};
  const content: unknown[] = [];
  const text = choice.message?.content;
  if (typeof text === 'string' && text !== '') content.push({ type: 'text', text });
  for (const c of choice.message?.tool_calls ?? []) content.push({ type: 'tool_use', id: c.id, name: c.function.name, input: toolInput(c.function.arguments) });
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    ...stopReason(choice.finish_reason, choice.stop_reason, stopSequences),
    usage: anthropicUsage(completion.usage as ChatUsage | undefined),
  };
}
