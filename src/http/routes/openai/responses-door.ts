// The Responses door onto the model pipeline: a Responses request (with the stored
// conversation its previous_response_id names) runs as chat completions; its answer and
// stream come back in the Responses shapes (gateway/responses/*), and with `store` (default
// true) the response is stored before the client reads its end. A model whose upstreams
// speak the Responses API gets the request as it was sent (ModelCall.native); its answer
// and events come back as they are, the terminal event held until the usage is durable.
import type { Logger } from '../../../lib/logger.ts';
import type { Principal } from '../../../domain/roles.ts';
import { responseIds, responseObject } from '../../../gateway/responses/answer.ts';
import { newId } from '../../../lib/ids.ts';
import { chatRequest, inputItems, type Item, type ResponsesBody } from '../../../gateway/responses/request.ts';
import { responseEvents } from '../../../gateway/responses/stream.ts';
import { TERMINAL_EVENTS } from '../../../gateway/upstreams/responses-native.ts';

import { sseEvent, type Door } from '../../model-answer.ts';
import { errorPayload } from '../../../lib/error-answer.ts';
import { getConversation, saveResponse, type Responses } from '../../../domain/responses/responses.ts';
import type { Ctx } from '../../../domain/context.ts';
import type { Gateway } from '../../../gateway/gateway.ts';

/** A Responses object's output items (what a later previous_response_id continues from). */
const outputOf = (response: unknown): Item[] => {
  const out = (response as { output?: unknown }).output;
  return Array.isArray(out) ? out as Item[] : [];
};

export async function responsesDoor(s: { ctx: Ctx; gateway: Gateway; responses: Responses }, p: Principal, body: ResponsesBody, log: Logger): Promise<Door> {
  const previous = body.previous_response_id ? await getConversation(s.responses, p, body.previous_response_id) as Item[] : [];
  // Refusals of the translation come before the stored conversation is used. For an upstream
  // that speaks Responses the translation only measures the request, so it refuses nothing.
  const chat = chatRequest(body, previous, { lenient: await s.gateway.speaksResponses(String(body.model)) });
  const now = s.ctx.clock.nowMs();
  const createdAt = Math.floor(now / 1000);
  const ids = responseIds(newId('response', now));
  // Storing comes after the answer was billed: if it fails, the client still gets what it
  // paid for (the failure is logged; a later previous_response_id naming it is refused as
  // not found) rather than an error for a call that was charged.
  const store = async (response: { id: string }, output: Item[]) => {
    if (body.store === false) return;
    try {
      await saveResponse(s.responses, p, response.id, response, [...previous, ...inputItems(body.input), ...output]);
    } catch (e) {
      log.error({ err: e, response: response.id }, 'storing a response failed; it was answered and billed, not stored');
    }
  };
  return {
    family: 'llm',
    body: chat,
    native: body,
    async json(answer, native) {
      if (native) {
        await store(answer as { id: string }, outputOf(answer));
        return answer;
      }
      const { response, output } = responseObject(answer, body, ids, createdAt);
      await store(response, output);
      return response;
    },
    async *frames(chunks, native) {
      if (!native) {
        for await (const e of responseEvents(chunks, body, ids, createdAt, store)) yield sseEvent(e);
        return;
      }
      let terminal: { type: string; response?: { id: string } } | undefined;
      for await (const e of chunks as AsyncIterable<{ type: string; response?: { id: string } }>) {
        if (TERMINAL_EVENTS.has(e.type)) terminal = e; // sent once the iteration ends: the usage is durable then
        else yield sseEvent(e);
      }
      if (terminal?.response) await store(terminal.response, outputOf(terminal.response));
      if (terminal) yield sseEvent(terminal);
    },
    errorFrame(e) {
      const { error } = errorPayload(e, 'llm') as { error: { message: string; code: string; param: string | null } };
      return sseEvent({ type: 'error', code: error.code, message: error.message, param: error.param } as { type: string });
    },
  };
}
