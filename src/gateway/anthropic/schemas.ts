// Request and answer shapes of the Anthropic-compatible surface (Anthropic's Messages API,
// as its SDKs send it); the routes (http/routes/anthropic/) validate with them. Objects are
// open: fields this gateway does not use (thinking, service_tier, cache_control, …) are
// accepted without effect. Rules that span fields are judged by the translation
// (request.ts) and by the pipeline's request rules.
import { Type, type TSchema } from 'typebox';
import type { AnswerDoc } from '../openai/schemas.ts';

const Block = Type.Object({ type: Type.String({ description: 'text, image, tool_use, tool_result (thinking blocks of assistant turns are dropped)' }) });
const Message = Type.Object({
  role: Type.String({ enum: ['user', 'assistant'] }),
  content: Type.Union([Type.String(), Type.Array(Block)]),
});
const TextBlock = Type.Object({ type: Type.Literal('text'), text: Type.String() });
const Tool = Type.Object({
  type: Type.Optional(Type.String({ description: 'custom (the default); server tools are not supported' })),
  name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,128}$' }),
  description: Type.Optional(Type.String()),
  input_schema: Type.Optional(Type.Object({}, { description: 'a JSON Schema of type "object"' })),
});
const ToolChoice = Type.Object({
  type: Type.String({ enum: ['auto', 'any', 'tool', 'none'] }),
  name: Type.Optional(Type.String({ description: 'with type "tool"' })),
  disable_parallel_tool_use: Type.Optional(Type.Boolean()),
});

const Prompt = {
  model: Type.String({ minLength: 1, maxLength: 200, description: 'Model id, e.g. gantry/sim-chat-small' }),
  messages: Type.Array(Message, { minItems: 1 }),
  system: Type.Optional(Type.Union([Type.String(), Type.Array(TextBlock)])),
  tools: Type.Optional(Type.Array(Tool)),
  tool_choice: Type.Optional(ToolChoice),
};

export const MessagesBody = Type.Object({
  ...Prompt,
  max_tokens: Type.Integer({ minimum: 1, description: 'required, as Anthropic requires it' }),
  stop_sequences: Type.Optional(Type.Array(Type.String())),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_k: Type.Optional(Type.Integer({ minimum: 0 })),
  metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])) })),
  stream: Type.Optional(Type.Boolean()),
});

export const CountTokensBody = Type.Object(Prompt);

export const AnthropicVersion = Type.Object({
  'anthropic-version': Type.Optional(Type.String({ description: 'accepted and not required: every version is answered alike (2023-06-01 shapes)' })),
});

const Open = { additionalProperties: true } as const;
const ContentBlock = Type.Union([
  Type.Object({ type: Type.Literal('text'), text: Type.String() }),
  Type.Object({ type: Type.Literal('tool_use'), id: Type.String(), name: Type.String(), input: Type.Object({}, Open) }),
]);
const MessageAnswer = Type.Object({
  id: Type.String({ description: 'msg_…' }), type: Type.Literal('message'), role: Type.Literal('assistant'), model: Type.String(),
  content: Type.Array(ContentBlock),
  stop_reason: Type.String({ enum: ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'refusal'] }),
  stop_sequence: Type.Union([Type.String(), Type.Null()]),
  usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), cache_creation_input_tokens: Type.Integer(), cache_read_input_tokens: Type.Integer() }),
}, { ...Open, description: 'A message' });

function jsonOrEvents(body: TSchema): AnswerDoc {
  return {
    description: 'A message, or with `stream: true` Anthropic\'s server-sent events',
    content: {
      'application/json': { schema: body },
      'text/event-stream': {
        schema: Type.String({
          description: 'With `stream: true`: `event: <type>` and `data: <JSON>` per event: message_start, ping, then per content block '
            + 'content_block_start, content_block_delta (text_delta or input_json_delta), content_block_stop; then message_delta '
            + '(stop_reason, usage with input and output tokens) and message_stop, sent once the usage is recorded. '
            + 'An upstream failure after the first event ends the stream with an `error` event.',
        }),
      },
    },
  };
}

export const AnthropicAnswers = {
  message: { 200: jsonOrEvents(MessageAnswer) },
  countTokens: { 200: Type.Object({ input_tokens: Type.Integer({ description: 'by the simulator\'s tokenizer: exact for simulated models, an estimate for others' }) }) },
};
