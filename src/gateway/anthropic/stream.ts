// A chat-completions stream as Anthropic's event sequence: message_start, ping, then per
// content block content_block_start / content_block_delta (text_delta, input_json_delta) /
// content_block_stop, then message_delta (stop reason, usage) and message_stop. Blocks are
// sequential, as Anthropic sends them: a new block closes the open one. Pure.
import type { Chunk } from '../gateway.ts';
import { anthropicUsage, messageId, stopReason } from './answer.ts';

export type AnthropicEvent = { type: string } & Record<string, unknown>;

type Delta = { content?: unknown; tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> };
type StreamChoice = { delta?: Delta; finish_reason?: unknown; stop_reason?: unknown };

/**
 * The events of one answer. The input's iteration ends once the pipeline has made the usage
 * durable, so `message_stop` (the last event) is sent only then. Input tokens are known at the
 * end (the usage chunk): message_start says 0 and message_delta gives the total, which
 * Anthropic's SDKs take over.
 */
export async function* anthropicEvents(chunks: AsyncIterable<Chunk>, model: string, stopSequences: readonly string[] | undefined): AsyncGenerator<AnthropicEvent> {
  let started = false;
  let open: { index: number; kind: 'text' | 'tool_use' } | undefined;
  let blocks = 0;
  const toolBlock = new Map<number, number>(); // the chat tool call's index → its block's index
  let finish: unknown;
  let matched: unknown;
  let usage: Chunk['usage'];
  const start = (c: Chunk): AnthropicEvent[] => {
    started = true;
    return [{
      type: 'message_start',
      message: {
        id: messageId(c.id), type: 'message', role: 'assistant', model: c.model ?? model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }, { type: 'ping' }];
  };
  const close = (): AnthropicEvent[] => {
    if (!open) return [];
    const e = { type: 'content_block_stop', index: open.index };
    open = undefined;
    return [e];
  };
  for await (const c of chunks) {
    if (!started) yield* start(c);
    if (c.usage) usage = c.usage;
    const choice = (c.choices as StreamChoice[] | undefined)?.[0];
    if (!choice) continue;
    const d = choice.delta ?? {};
    if (typeof d.content === 'string' && d.content !== '') {
      if (open?.kind !== 'text') {
        yield* close();
        open = { index: blocks++, kind: 'text' };
        yield { type: 'content_block_start', index: open.index, content_block: { type: 'text', text: '' } };
      }
      yield { type: 'content_block_delta', index: open.index, delta: { type: 'text_delta', text: d.content } };
    }
    for (const t of d.tool_calls ?? []) {
      const at = t.index ?? 0;
      let index = toolBlock.get(at);
      if (index === undefined) {
        yield* close();
        index = blocks++;
        toolBlock.set(at, index);
        open = { index, kind: 'tool_use' };
        yield { type: 'content_block_start', index, content_block: { type: 'tool_use', id: t.id ?? `toolu_${index}`, name: t.function?.name ?? '', input: {} } };
      }
      if (t.function?.arguments) yield { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: t.function.arguments } };
    }
    if (choice.finish_reason) finish = choice.finish_reason;
    if (choice.stop_reason !== undefined && choice.stop_reason !== null) matched = choice.stop_reason;
  }
  if (!started) yield* start({});
  yield* close();
  yield { type: 'message_delta', delta: stopReason(finish, matched, stopSequences), usage: anthropicUsage(usage as Parameters<typeof anthropicUsage>[0]) };
  yield { type: 'message_stop' };
}
