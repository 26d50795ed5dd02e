// Reading an upstream that speaks OpenAI's Responses API itself (a model target with
// `responses: true`): its usage (input/output tokens, cached and reasoning details) for
// billing, and which of its stream events ends a response.
import type { Usage } from './upstream.ts';

const count = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : 0);

/** A Responses `usage` object as the pipeline bills it; null when the upstream sent none. */
export function responsesUsage(u: unknown): Usage | null {
  const x = u as Record<string, unknown> | null | undefined;
  if (!x || typeof x.input_tokens !== 'number') return null;
  const id = x.input_tokens_details as { cached_tokens?: unknown } | null | undefined;
  const od = x.output_tokens_details as { reasoning_tokens?: unknown } | null | undefined;
  return {
    promptTokens: x.input_tokens, completionTokens: count(x.output_tokens),
    cachedTokens: count(id?.cached_tokens), reasoningTokens: count(od?.reasoning_tokens), reported: x,
  };
}

/** Events after which a Responses stream carries nothing more of the response. */
export const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** The text a Responses object's output holds (for the estimate when no usage came). */
export function responsesText(response: unknown): string {
  const out = (response as { output?: unknown } | null)?.output;
  if (!Array.isArray(out)) return '';
  const parts: string[] = [];
  for (const item of out) {
    const content = (item as { content?: unknown }).content;
    if (Array.isArray(content)) for (const c of content) if (typeof (c as { text?: unknown }).text === 'string') parts.push((c as { text: string }).text);
    if (typeof (item as { arguments?: unknown }).arguments === 'string') parts.push((item as { arguments: string }).arguments);
  }
  return parts.join(' ');
}
