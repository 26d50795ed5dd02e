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

/** A stream's translation so far: the items, the one open, the chat tool calls' items, the next sequence number. */
interface Translation {
  body: ResponsesBody;
  ids: ResponseIds;
  createdAt: number;
  model: unknown;
  seq: number;
  output: Item[];
  /** the chat tool call's index → its item */
  calls: Map<number, Open>;
  open: Open | undefined;
}

function ev(t: Translation, type: string, fields: Record<string, unknown>): ResponsesEvent {
  return { type, ...fields, sequence_number: t.seq++ };
}

function* lifecycleStarts(t: Translation): Generator<ResponsesEvent> {
  const shell = envelope(t.body, t.ids, t.createdAt, t.model, 'in_progress', [], null);
  yield ev(t, 'response.created', { response: shell });
  yield ev(t, 'response.in_progress', { response: shell });
}

/** The open item ends: its content's last events, then output_item.done. */
function* closeOpen(t: Translation, status: Status): Generator<ResponsesEvent> {
  const o = t.open;
  if (!o) return;
  t.open = undefined;
  if (o.kind === 'message') {
    yield ev(t, 'response.output_text.done', { item_id: o.id, output_index: o.index, content_index: 0, text: o.text, logprobs: [] });
    yield ev(t, 'response.content_part.done', { item_id: o.id, output_index: o.index, content_index: 0, part: outputText(o.text) });
    t.output[o.index] = messageItem(o.id, o.text, status);
  } else {
    yield ev(t, 'response.function_call_arguments.done', { item_id: o.id, output_index: o.index, name: o.name, arguments: o.text });
    t.output[o.index] = functionCallItem(o.id, o.callId!, o.name!, o.text, status);
  }
  yield ev(t, 'response.output_item.done', { output_index: o.index, item: t.output[o.index] });
}

/** Text goes to the message item, opened (and the open call closed) at its first text. */
function* textDelta(t: Translation, text: string): Generator<ResponsesEvent> {
  if (t.open?.kind !== 'message') {
    yield* closeOpen(t, 'completed');
    const open: Open = { index: t.output.length, kind: 'message', id: t.ids.message, text: '' };
    t.open = open;
    t.output.push(messageItem(open.id, '', 'in_progress'));
    yield ev(t, 'response.output_item.added', { output_index: open.index, item: t.output[open.index] });
    yield ev(t, 'response.content_part.added', { item_id: open.id, output_index: open.index, content_index: 0, part: outputText('') });
  }
  const open = t.open!;
  open.text += text;
  yield ev(t, 'response.output_text.delta', { item_id: open.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] });
}

/** Each tool call's arguments go to its function_call item, opened at the call's first delta. */
function* toolCallDeltas(t: Translation, toolCalls: NonNullable<Delta['tool_calls']>): Generator<ResponsesEvent> {
  for (const c of toolCalls) {
    const at = c.index ?? 0;
    let call = t.calls.get(at);
    if (!call) {
      yield* closeOpen(t, 'completed');
      call = { index: t.output.length, kind: 'function_call', id: t.ids.call(at), text: '', callId: c.id ?? t.ids.call(at), name: c.function?.name ?? '' };
      t.calls.set(at, call);
      t.open = call;
      t.output.push(functionCallItem(call.id, call.callId!, call.name!, '', 'in_progress'));
      yield ev(t, 'response.output_item.added', { output_index: call.index, item: t.output[call.index] });
    }
    const args = c.function?.arguments;
    if (args) {
      call.text += args;
      yield ev(t, 'response.function_call_arguments.delta', { item_id: call.id, output_index: call.index, delta: args });
    }
  }
}

export async function* responseEvents(
  chunks: AsyncIterable<Chunk>, body: ResponsesBody, ids: ResponseIds, createdAt: number,
  finish: (response: ReturnType<typeof envelope>, output: Item[]) => Promise<void>,
): AsyncGenerator<ResponsesEvent> {
  const t: Translation = { body, ids, createdAt, model: body.model, seq: 0, output: [], calls: new Map(), open: undefined };
  let started = false;
  let finishReason: unknown;
  let usage: Chunk['usage'];
  for await (const c of chunks) {
    if (!started) {
      started = true;
      t.model = c.model ?? t.model;
      yield* lifecycleStarts(t);
    }
    if (c.usage) usage = c.usage;
    const choice = (c.choices as StreamChoice[] | undefined)?.[0];
    if (!choice) continue;
    const d = choice.delta ?? {};
    if (typeof d.content === 'string' && d.content !== '') yield* textDelta(t, d.content);
    yield* toolCallDeltas(t, d.tool_calls ?? []);
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!started) yield* lifecycleStarts(t); // an upstream that sent nothing: the lifecycle still starts before it ends
  const status: Status = finishReason === 'length' ? 'incomplete' : 'completed';
  yield* closeOpen(t, status);
  const response = envelope(body, ids, createdAt, t.model, status, t.output, responsesUsage(usage as Parameters<typeof responsesUsage>[0]));
  await finish(response, t.output);
  yield ev(t, status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
}
