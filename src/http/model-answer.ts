// Sends a model pipeline's answer over HTTP: JSON, or Server-Sent Events. The pipeline
// (gateway/gateway.ts) speaks OpenAI's chat shapes and knows nothing of this; each front
// door (OpenAI's routes, Anthropic's Messages, OpenAI's Responses) says how its clients
// read an answer and a stream (a `Door`). A client that hangs up aborts the call through
// its signal.
import { PassThrough } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Chunk, Gateway, ModelCall } from '../gateway/gateway.ts';
import type { ModelBody } from '../gateway/upstreams/upstream.ts';
import { AppError } from '../lib/errors.ts';
import type { Family } from '../lib/error-families.ts';
import { errorPayload, toAppError } from '../lib/error-answer.ts';
import { principalOf } from './types.ts';

/** How one API surface asks the pipeline and answers its clients. */
export interface Door {
  family: Family;
  /** the body the pipeline runs (the surface's request, translated) */
  body: ModelBody;
  /** the surface's own request, for upstreams that speak the surface (ModelCall.native) */
  native?: ModelBody | undefined;
  /** the whole answer as the surface's clients read it; `native`: the answer is already in the surface's shape */
  json(answer: Chunk, native?: boolean): unknown;
  /**
   * The stream's SSE frames, from the pipeline's chunks. The iteration of `chunks` ends only
   * once the usage is durable, so a last frame yielded after it tells the client the answer
   * is complete and billed.
   */
  frames(chunks: AsyncIterable<Chunk>, native?: boolean): AsyncIterable<string>;
  /** the frame that ends a stream the upstream broke (headers are gone) */
  errorFrame(e: AppError): string;
}

/** OpenAI's routes: the pipeline's own shapes, `data: <chunk>` frames, then `data: [DONE]`. */
export function openaiDoor(body: ModelBody): Door {
  return {
    family: 'llm',
    body,
    json: (answer) => answer,
    async *frames(chunks) {
      for await (const c of chunks) yield `data: ${JSON.stringify(c)}\n\n`;
      yield 'data: [DONE]\n\n'; // only after the usage is durable (the iteration settles first)
    },
    errorFrame: (e) => `data: ${JSON.stringify({ error: (errorPayload(e, 'llm') as { error: unknown }).error })}\n\n`,
  };
}

/** A named SSE event (`event: <type>`), as Anthropic's and the Responses API's streams send them. */
export function sseEvent(event: { type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Run a model call for a route and answer it. */
export async function answerModelCall(gateway: Gateway, endpoint: ModelCall['endpoint'], req: FastifyRequest, reply: FastifyReply,
  door: Door = openaiDoor(req.body as ModelBody)): Promise<FastifyReply> {
  const hangUp = new AbortController();
  // From the start, not the first chunk: a client may leave during the time to first token.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) hangUp.abort(new Error('the client closed the connection'));
  });
  const answer = await gateway.run({ endpoint, principal: principalOf(req), body: door.body, native: door.native, signal: hangUp.signal });
  reply.headers(answer.headers);
  if (answer.kind === 'json') return reply.send(await door.json(answer.body, answer.native));
  const it = door.frames(answer.chunks, answer.native)[Symbol.asyncIterator]();
  const first = await it.next(); // a failure before anything is sent is a proper HTTP error
  const out = new PassThrough();
  reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache');
  reply.send(out);
  void pump(it, first, out, door);
  return reply;
}

async function pump(it: AsyncIterator<string>, first: IteratorResult<string>, out: PassThrough, door: Door): Promise<void> {
  try {
    for (let r = first; !r.done; r = await it.next()) out.write(r.value);
    out.end();
  } catch (e) {
    // Headers are gone: the failure travels as the surface's error event, and the stream has no proper end.
    out.end(door.errorFrame(e instanceof AppError ? e : toAppError(e, door.family)));
  }
}
