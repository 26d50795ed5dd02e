// The Anthropic door onto the model pipeline: a Messages request runs as chat completions,
// its answer and stream come back in Anthropic's shapes (gateway/anthropic/*), and a broken
// stream ends with Anthropic's `error` event.
import { anthropicMessage } from '../../../gateway/anthropic/answer.ts';
import { chatRequest, type MessagesBody } from '../../../gateway/anthropic/request.ts';
import { anthropicEvents } from '../../../gateway/anthropic/stream.ts';
import { sseEvent, type Door } from '../../model-answer.ts';
import { errorPayload } from '../../../lib/error-answer.ts';

export function anthropicDoor(body: MessagesBody): Door {
  return {
    family: 'anthropic',
    body: chatRequest(body),
    json: (answer) => anthropicMessage(answer, body.stop_sequences),
    async *frames(chunks) {
      for await (const e of anthropicEvents(chunks, body.model, body.stop_sequences)) yield sseEvent(e);
    },
    errorFrame: (e) => {
      const { error } = errorPayload(e, 'anthropic') as { error: unknown };
      return sseEvent({ type: 'error', error } as { type: string });
    },
  };
}
