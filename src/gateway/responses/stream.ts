// A chat-completions stream as the Responses API's events: response.created and
// response.in_progress, then per output item output_item.added, its content (a message:
// content_part.added, output_text.delta…, output_text.done, content_part.done; a function
// call: function_call_arguments.delta…, .done) and output_item.done, then response.completed
// (response.incomplete when max_output_tokens cut it) with the whole response and usage. Every
// event has a sequence_number. Items are sequential: a new one closes the open one. Pure: the
// caller's `finish` (storing the response) runs before the last event.
import type { Chunk } from '../gateway.ts';
import { envelope, functionCallItem, messageItem, outputText, responsesUsage, type ResponseIds, type Status } from './answer.ts';
import type { Item, ResponsesBody } from './request.ts';

export type ResponsesEvent = { type: string } & Record<string, unknown>;

type Delta = { content?: unknown; tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> };
type StreamChoice = { delta?: Delta; finish_reason?: unknown };

interface Open {
  index: number;
  kind: 'message' | 'function_call';
  id: string;
  text: string;
  callId?: string;
  name?: string;
}

export async function* responseEvents(
  chunks: AsyncIterable<Chunk>, body: ResponsesBody, ids: ResponseIds, createdAt: number,
  finish: (response: ReturnType<typeof envelope>, output: Item[]) => Promise<void>,
): AsyncGenerator<ResponsesEvent> {
  let seq = 0;
  const ev = (type: string, fields: Record<string, unknown>): ResponsesEvent => ({ type, ...fields, sequence_number: seq++ });
  let started = false;
  let model: unknown = body.model;
  const output: Item[] = [];
  const calls = new Map<number, Open>(); // the chat tool call's index → its item
  let open: Open | undefined;
  let finishReason: unknown;
  let usage: Chunk['usage'];

  function* close(status: Status): Generator<ResponsesEvent> {
    if (!open) return;
    const o = open;
    open = undefined;
    if (o.kind === 'message') {
      yield ev('response.output_text.done', { item_id: o.id, output_index: o.index, content_index: 0, text: o.text, logprobs: [] });
      yield ev('response.content_part.done', { item_id: o.id, output_index: o.index, content_index: 0, part: outputText(o.text) });
      output[o.index] = messageItem(o.id, o.text, status);
    } else {
      yield ev('response.function_call_arguments.done', { item_id: o.id, output_index: o.index, name: o.name, arguments: o.text });
      output[o.index] = functionCallItem(o.id, o.callId!, o.name!, o.text, status);
    }
    yield ev('response.output_item.done', { output_index: o.index, item: output[o.index] });
  }

  for await (const c of chunks) {
    if (!started) {
      started = true;
      model = c.model ?? model;
      const shell = envelope(body, ids, createdAt, model, 'in_progress', [], null);
      yield ev('response.created', { response: shell });
      yield ev('response.in_progress', { response: shell });
    }
    if (c.usage) usage = c.usage;
    const choice = (c.choices as StreamChoice[] | undefined)?.[0];
    if (!choice) continue;
    const d = choice.delta ?? {};
    if (typeof d.content === 'string' && d.content !== '') {
      if (open?.kind !== 'message') {
        yield* close('completed');
        open = { index: output.length, kind: 'message', id: ids.message, text: '' };
        output.push(messageItem(open.id, '', 'in_progress'));
        yield ev('response.output_item.added', { output_index: open.index, item: output[open.index] });
        yield ev('response.content_part.added', { item_id: open.id, output_index: open.index, content_index: 0, part: outputText('') });
      }
      open.text += d.content;
      yield ev('response.output_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: d.content, logprobs: [] });
    }
    for (const t of d.tool_calls ?? []) {
      const at = t.index ?? 0;
      let call = calls.get(at);
      if (!call) {
        yield* close('completed');
        call = { index: output.length, kind: 'function_call', id: ids.call(at), text: '', callId: t.id ?? ids.call(at), name: t.function?.name ?? '' };
        calls.set(at, call);
        open = call;
        output.push(functionCallItem(call.id, call.callId!, call.name!, '', 'in_progress'));
        yield ev('response.output_item.added', { output_index: call.index, item: output[call.index] });
      }
      const args = t.function?.arguments;
      if (args) {
        call.text += args;
        yield ev('response.function_call_arguments.delta', { item_id: call.id, output_index: call.index, delta: args });
      }
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!started) { // an upstream that sent nothing: the lifecycle still starts before it ends
    const shell = envelope(body, ids, createdAt, model, 'in_progress', [], null);
    yield ev('response.created', { response: shell });
    yield ev('response.in_progress', { response: shell });
  }
  const status: Status = finishReason === 'length' ? 'incomplete' : 'completed';
  yield* close(status);
  const response = envelope(body, ids, createdAt, model, status, output, responsesUsage(usage as Parameters<typeof responsesUsage>[0]));
  await finish(response, output);
  yield ev(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
}
