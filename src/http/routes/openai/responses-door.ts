// The Responses door onto the model pipeline: a Responses request (with the stored
// conversation its previous_response_id names) runs as chat completions; its answer and
// stream come back in the Responses shapes (gateway/responses/*), and with `store` (default
// true) the response is stored before the client reads its end.
import type { Principal } from '../../../domain/roles.ts';
import { responseIds, responseObject } from '../../../gateway/responses/answer.ts';
import { newId } from '../../../lib/ids.ts';
import { chatRequest, inputItems, type Item, type ResponsesBody } from '../../../gateway/responses/request.ts';
import { responseEvents } from '../../../gateway/responses/stream.ts';
import { sseEvent, type Door } from '../../model-answer.ts';
import { errorPayload } from '../../plugins/errors.ts';
import type { Services } from '../../types.ts';

export async function responsesDoor(s: Services, p: Principal, body: ResponsesBody): Promise<Door> {
  const previous = body.previous_response_id ? await s.responses.conversation(p, body.previous_response_id) as Item[] : [];
  const chat = chatRequest(body, previous); // refusals of the translation come before the stored conversation is used
  const now = s.ctx.clock.nowMs();
  const createdAt = Math.floor(now / 1000);
  const ids = responseIds(newId('response', now));
  const store = async (response: { id: string }, output: Item[]) => {
    if (body.store !== false) await s.responses.save(p, response.id, response, [...previous, ...inputItems(body.input), ...output]);
  };
  return {
    family: 'llm',
    body: chat,
    async json(answer) {
      const { response, output } = responseObject(answer, body, ids, createdAt);
      await store(response, output);
      return response;
    },
    async *frames(chunks) {
      for await (const e of responseEvents(chunks, body, ids, createdAt, store)) yield sseEvent(e);
    },
    errorFrame(e) {
      const { error } = errorPayload(e, 'llm') as { error: { message: string; code: string; param: string | null } };
      return sseEvent({ type: 'error', code: error.code, message: error.message, param: error.param } as { type: string });
    },
  };
}
