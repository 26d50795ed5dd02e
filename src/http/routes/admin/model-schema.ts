import { Type } from 'typebox';

const Target = Type.Union([
  Type.Literal('sim'),
  Type.Object({
    url: Type.String({ description: 'OpenAI-compatible base URL, e.g. http://host:port/v1' }),
    model: Type.Optional(Type.String({ description: 'model name upstream' })),
    apiKeyEnv: Type.Optional(Type.String({ description: 'environment variable holding the upstream key' })),
    responses: Type.Optional(Type.Boolean({ description: 'the server implements the Responses API (POST /responses): Responses requests are forwarded as sent instead of translated to chat' })),
    tokenizer: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'the tokenizer of the model the server runs, so prompts are counted exactly (the context rule and budget reservations): an OpenAI encoding (r50k_base, p50k_base, p50k_edit, cl100k_base, o200k_base, o200k_harmony) or the absolute path of a Hugging Face tokenizer.json on the Gantry host; omitted: a lower bound' })),
  }),
]);
export const UpstreamSchema = Type.Union([Target, Type.Array(Target, { minItems: 1, description: 'failover order' })]);

export const ModelAdminView = Type.Object({
  id: Type.String(), title: Type.String(), description: Type.String(), contextSize: Type.Integer(),
  inputTokenPricePerM: Type.String(), outputTokenPricePerM: Type.String(),
  batchInputTokenPricePerM: Type.Union([Type.String(), Type.Null()]), batchOutputTokenPricePerM: Type.Union([Type.String(), Type.Null()]),
  cachedInputTokenPricePerM: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  upstream: Type.Unknown(), created: Type.Integer(),
});
