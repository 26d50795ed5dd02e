// Request and answer shapes of the OpenAI-compatible surface (OpenAI's, loosely: unknown
// fields pass through to the upstream and back): chat, completions, embeddings, rerank, the
// model list and the Responses API. The gateway owns them: the routes validate with them
// (http/routes/openai/, served under http/routes/openai/bases.ts) and a batch line is judged
// by the same ones (jobs/batch-body.ts). Model answers are documented only
// (config.docResponses), never used to serialize: the upstream's body reaches the client as
// the upstream wrote it.
import { Type, type Static, type TSchema } from 'typebox';
import type { modelRecord } from '../../domain/models/models.ts';

/** An answer as /openapi.json documents it: the shape of a route's `config.docResponses` entry (http/schemas.ts DocResponse). */
export interface AnswerDoc {
  description: string;
  content: Record<string, { schema: TSchema }>;
}

const Model = Type.String({ minLength: 1, maxLength: 200, description: 'Model id, e.g. gantry/sim-chat-small' });
const MaxTokens = Type.Integer({ minimum: 1 });
const StreamOptions = Type.Object({ include_usage: Type.Optional(Type.Boolean()) });

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** OpenAI's message roles; which may follow which is judged in gateway/request-rules.ts. */
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
const ToolCall = Type.Object({
  id: Type.String(), type: Type.String(),
  function: Type.Object({ name: Type.String(), arguments: Type.String() }),
});
const Message = Type.Object({
  role: Type.String({ enum: [...ROLES] }),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() })), Type.Null()])),
  name: Type.Optional(Type.String()),
  tool_calls: Type.Optional(Type.Array(ToolCall)),
  tool_call_id: Type.Optional(Type.String()),
});

/** OpenAI's rule for function and schema names. */
const FunctionName = Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$', description: 'letters, digits, _ and -, at most 64' });
// Tools of other types than "function" pass to upstreams that know them; the simulator calls function tools only.
const Tool = Type.Object({
  type: Type.String(),
  function: Type.Optional(Type.Object({
    name: FunctionName, description: Type.Optional(Type.String()),
    parameters: Type.Optional(Type.Unknown({ description: 'a JSON Schema of type "object"' })),
    strict: Type.Optional(Nullable(Type.Boolean())),
  })),
});
const ToolChoice = Type.Union([
  Type.String({ enum: ['none', 'auto', 'required'] }),
  Type.Object({ type: Type.String(), function: Type.Optional(Type.Object({ name: Type.String() })) }),
]);
const ResponseFormat = Type.Object({
  type: Type.String({ enum: ['text', 'json_object', 'json_schema'] }),
  json_schema: Type.Optional(Type.Object({
    name: FunctionName, description: Type.Optional(Type.String()),
    schema: Type.Optional(Type.Unknown({ description: 'the JSON Schema the content follows' })),
    strict: Type.Optional(Nullable(Type.Boolean())),
  })),
});
/** n: OpenAI's range. */
const Choices = Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 128 })));
const Stop = Type.Optional(Nullable(Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 4 })])));
const Sampling = {
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  seed: Type.Optional(Nullable(Type.Integer())),
  stop: Stop,
  n: Choices,
};

export const ChatBody = Type.Object({
  model: Model,
  messages: Type.Array(Message, { minItems: 1 }),
  max_tokens: Type.Optional(MaxTokens),
  max_completion_tokens: Type.Optional(MaxTokens),
  ...Sampling,
  logprobs: Type.Optional(Nullable(Type.Boolean())),
  top_logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 20 }))),
  tools: Type.Optional(Type.Array(Tool)),
  tool_choice: Type.Optional(ToolChoice),
  parallel_tool_calls: Type.Optional(Type.Boolean()),
  response_format: Type.Optional(ResponseFormat),
  stream: Type.Optional(Type.Boolean()),
  stream_options: Type.Optional(StreamOptions),
});

const ResponseId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,200}$', description: 'resp_…' });

/** The Responses API's request (gateway/responses/request.ts translates it to chat). */
export const ResponsesBody = Type.Object({
  model: Model,
  input: Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.Optional(Type.String()) }, { description: 'message, function_call or function_call_output' }), { minItems: 1 })]),
  instructions: Type.Optional(Nullable(Type.String())),
  tools: Type.Optional(Type.Array(Type.Object({
    type: Type.String({ description: 'function (other tool types are refused)' }),
    name: Type.Optional(FunctionName), description: Type.Optional(Nullable(Type.String())),
    parameters: Type.Optional(Type.Unknown({ description: 'a JSON Schema of type "object"' })), strict: Type.Optional(Nullable(Type.Boolean())),
  }))),
  tool_choice: Type.Optional(Type.Union([
    Type.String({ enum: ['none', 'auto', 'required'] }),
    Type.Object({ type: Type.String(), name: Type.Optional(Type.String()) }),
  ])),
  text: Type.Optional(Type.Object({
    format: Type.Optional(Type.Object({
      type: Type.String({ enum: ['text', 'json_object', 'json_schema'] }),
      name: Type.Optional(FunctionName), description: Type.Optional(Type.String()),
      schema: Type.Optional(Type.Unknown({ description: 'the JSON Schema the output text follows' })), strict: Type.Optional(Nullable(Type.Boolean())),
    })),
  })),
  max_output_tokens: Type.Optional(Nullable(Type.Integer({ minimum: 16, description: "OpenAI's minimum is 16" }))),
  temperature: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 2 }))),
  top_p: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 1 }))),
  parallel_tool_calls: Type.Optional(Nullable(Type.Boolean())),
  previous_response_id: Type.Optional(Nullable(ResponseId)),
  store: Type.Optional(Nullable(Type.Boolean({ description: 'default true: the response can be retrieved and continued' }))),
  stream: Type.Optional(Nullable(Type.Boolean())),
  metadata: Type.Optional(Nullable(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }), { maxProperties: 16 }))),
  user: Type.Optional(Type.String()),
});

export const ResponseIdParams = Type.Object({ id: ResponseId });

export const CompletionBody = Type.Object({
  model: Model,
  prompt: Type.Union([
    Type.String(), Type.Array(Type.String(), { minItems: 1 }), Type.Array(Type.Integer(), { minItems: 1 }),
    Type.Array(Type.Array(Type.Integer(), { minItems: 1 }), { minItems: 1 }),
  ]),
  max_tokens: Type.Optional(MaxTokens),
  ...Sampling,
  logprobs: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 5 }))),
  stream: Type.Optional(Type.Boolean()),
  stream_options: Type.Optional(StreamOptions),
});

export const EmbeddingBody = Type.Object({
  model: Model,
  input: Type.Union([
    Type.String(), Type.Array(Type.String(), { minItems: 1 }), Type.Array(Type.Integer(), { minItems: 1 }),
    Type.Array(Type.Array(Type.Integer(), { minItems: 1 }), { minItems: 1 }),
  ]),
  encoding_format: Type.Optional(Type.String({ enum: ['float', 'base64'] })),
  dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
});

export const RerankBody = Type.Object({
  model: Model,
  query: Type.String({ minLength: 1 }),
  documents: Type.Array(Type.Union([Type.String(), Type.Object({ text: Type.String() })]), { minItems: 1, maxItems: 1000 }),
  top_n: Type.Optional(Type.Integer({ minimum: 1 })),
});

export const ModelRecord = Type.Object({
  id: Type.String(), object: Type.Literal('model'), created: Type.Integer(), owned_by: Type.String({ description: 'the organization part of the id' }),
  title: Type.String(), description: Type.String(),
  context_size: Type.Integer(), input_token_price_per_m: Type.Integer(), output_token_price_per_m: Type.Integer(),
});
// The schema and the domain's modelRecord() describe one shape: either drifting fails typecheck.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const modelRecordMatches: Same<Static<typeof ModelRecord>, ReturnType<typeof modelRecord>> = true;
void modelRecordMatches;

// Model answers. Objects are open: fields the upstream adds (system_fingerprint,
// service_tier, …) are passed through.
const Open = { additionalProperties: true } as const;
const Usage = Type.Object({ prompt_tokens: Type.Integer(), completion_tokens: Type.Integer(), total_tokens: Type.Integer() }, Open);
const PromptUsage = Type.Object({ prompt_tokens: Type.Integer(), total_tokens: Type.Integer() }, Open);
const FinishReason = Type.Union([Type.String({ description: 'stop, length, tool_calls, …' }), Type.Null()]);
const Answer = { id: Type.String(), created: Type.Integer({ description: 'Unix seconds' }), model: Type.String({ description: 'the catalogue id the request named' }) };

const ChatCompletion = Type.Object({
  ...Answer, object: Type.Literal('chat.completion'),
  choices: Type.Array(Type.Object({
    index: Type.Integer(),
    message: Type.Object({
      role: Type.String(), content: Type.Union([Type.String(), Type.Null()]), refusal: Type.Union([Type.String(), Type.Null()]),
      tool_calls: Type.Optional(Type.Array(ToolCall, { description: 'with finish_reason tool_calls; content is null' })),
    }, Open),
    logprobs: Type.Union([Type.Object({ content: Type.Union([Type.Array(Type.Object({}, Open)), Type.Null()]), refusal: Type.Null() }, Open), Type.Null()],
      { description: 'with logprobs: true' }),
    finish_reason: FinishReason,
  }, Open)),
  usage: Usage,
}, { ...Open, description: 'A chat completion' });

const ChatCompletionChunk = Type.Object({
  ...Answer, object: Type.Literal('chat.completion.chunk'),
  choices: Type.Array(Type.Object({
    index: Type.Integer(),
    delta: Type.Object({ role: Type.Optional(Type.String()), content: Type.Optional(Type.Union([Type.String(), Type.Null()])) }, Open),
    finish_reason: FinishReason,
  }, Open)),
  usage: Type.Optional(Type.Union([Usage, Type.Null()], { description: 'in the last chunk (empty choices) when stream_options.include_usage is true' })),
}, Open);

const Completion = Type.Object({
  ...Answer, object: Type.Literal('text_completion'),
  choices: Type.Array(Type.Object({ index: Type.Integer(), text: Type.String(), finish_reason: FinishReason }, Open)),
  usage: Type.Optional(Usage),
}, { ...Open, description: 'A completion; a streamed chunk has the same shape, one piece of text per choice' });

const Embeddings = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Object({
    object: Type.Literal('embedding'), index: Type.Integer(),
    embedding: Type.Union([Type.Array(Type.Number()), Type.String({ description: 'little-endian float32, base64 (encoding_format: base64)' })]),
  }, Open)),
  model: Type.String(),
  usage: PromptUsage,
}, { ...Open, description: 'Embeddings, one per input, in input order' });

const Rerank = Type.Object({
  id: Type.String(), model: Type.String(),
  results: Type.Array(Type.Object({ index: Type.Integer(), document: Type.Object({ text: Type.String() }), relevance_score: Type.Number() }, Open),
    { description: 'most relevant first; top_n of them when given' }),
  usage: PromptUsage,
}, { ...Open, description: 'Documents ranked against the query' });

/** JSON, or with `stream: true` server-sent events: one `data: <chunk>` each, then `data: [DONE]`. */
function jsonOrStream(description: string, body: TSchema, chunk: TSchema): AnswerDoc {
  return {
    description,
    content: {
      'application/json': { schema: body },
      'text/event-stream': {
        schema: Type.String({
          description: 'With `stream: true`: server-sent events, each `data: <chunk JSON>` and a blank line; the stream ends with `data: [DONE]`. '
            + 'An upstream failure after the first chunk ends the stream with `data: {"error": {message, type, param, code}}`.',
          contentMediaType: 'application/json', contentSchema: chunk,
          examples: ['data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gantry/sim-chat-small","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\ndata: [DONE]\n\n'],
        }),
      },
    },
  };
}

const ResponseObject = Type.Object({
  id: Type.String({ description: 'resp_…' }), object: Type.Literal('response'), created_at: Type.Integer(),
  status: Type.String({ enum: ['completed', 'incomplete', 'in_progress'] }), model: Type.String(),
  output: Type.Array(Type.Object({ type: Type.String({ description: 'message (content: output_text) or function_call' }), id: Type.String() }, Open)),
  usage: Type.Union([Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), total_tokens: Type.Integer() }, Open), Type.Null()]),
}, { ...Open, description: 'A response (OpenAI Responses API)' });

/** 200 answers of the model routes, for the OpenAPI document only (see config.docResponses). */
export const ModelAnswers = {
  chat: { 200: jsonOrStream('A chat completion, or with `stream: true` a stream of chunks', ChatCompletion, ChatCompletionChunk) },
  completions: { 200: jsonOrStream('A completion, or with `stream: true` a stream of chunks', Completion, Completion) },
  embeddings: { 200: Embeddings },
  rerank: { 200: Rerank },
  response: {
    200: {
      description: 'A response, or with `stream: true` the Responses API\'s server-sent events (`event: <type>`, `data: <event>`, each with a sequence_number): '
        + 'response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta, '
        + 'response.output_text.done, response.content_part.done, response.function_call_arguments.delta/.done, response.output_item.done, '
        + 'and response.completed (response.incomplete when max_output_tokens cut it), sent once the usage is recorded and the response stored.',
      content: { 'application/json': { schema: ResponseObject }, 'text/event-stream': { schema: Type.String() } },
    } satisfies AnswerDoc,
  },
  storedResponse: { 200: ResponseObject },
  deletedResponse: { 200: Type.Object({ id: Type.String(), object: Type.Literal('response'), deleted: Type.Literal(true) }) },
};
