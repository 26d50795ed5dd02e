// Request shapes of the OpenAI-compatible routes (OpenAI's, loosely: unknown fields pass
// through to the upstream) and the base paths they are served under (compat.md).
import { Type } from 'typebox';

/** `/openai/v1` is documented; the two aliases serve the same routes. */
export const OPENAI_BASES = ['/openai/v1', '/openai', '/v3/openai'] as const;

const Model = Type.String({ minLength: 1, maxLength: 200, description: 'Model id, e.g. gantry/sim-chat-small' });
const MaxTokens = Type.Integer({ minimum: 1 });
const StreamOptions = Type.Object({ include_usage: Type.Optional(Type.Boolean()) });

const Message = Type.Object({
  role: Type.String({ minLength: 1 }),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() })), Type.Null()])),
  name: Type.Optional(Type.String()),
});

export const ChatBody = Type.Object({
  model: Model,
  messages: Type.Array(Message, { minItems: 1 }),
  max_tokens: Type.Optional(MaxTokens),
  max_completion_tokens: Type.Optional(MaxTokens),
  n: Type.Optional(Type.Integer({ minimum: 1, maximum: 8 })),
  stream: Type.Optional(Type.Boolean()),
  stream_options: Type.Optional(StreamOptions),
});

export const CompletionBody = Type.Object({
  model: Model,
  prompt: Type.Union([
    Type.String(), Type.Array(Type.String(), { minItems: 1 }), Type.Array(Type.Integer(), { minItems: 1 }),
    Type.Array(Type.Array(Type.Integer(), { minItems: 1 }), { minItems: 1 }),
  ]),
  max_tokens: Type.Optional(MaxTokens),
  n: Type.Optional(Type.Integer({ minimum: 1, maximum: 8 })),
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
  id: Type.String(), object: Type.Literal('model'), created: Type.Integer(), title: Type.String(), description: Type.String(),
  context_size: Type.Integer(), input_token_price_per_m: Type.Integer(), output_token_price_per_m: Type.Integer(),
});
