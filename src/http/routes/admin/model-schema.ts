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
  upstream: Type.Unknown(),
  upstreamKey: Type.Object({
    set: Type.Boolean({ description: 'a key is stored (sealed) for the servers of upstream that name no apiKeyEnv; the key itself is never returned' }),
    setAt: Type.Union([Type.Integer(), Type.Null()], { description: 'when it was last set (Unix seconds)' }),
  }),
  created: Type.Integer(),
});

/** A model path's id: an id with `/` (acme/remote) is sent as acme%2Fremote. */
export const ModelIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const ModelCheckSchema = Type.Object({
  ok: Type.Boolean(),
  upstreams: Type.Array(Type.Object({
    url: Type.String(),
    reachable: Type.Boolean(),
    keyAccepted: Type.Union([Type.Boolean(), Type.Null()]),
    modelListed: Type.Union([Type.Boolean(), Type.Null()]),
    error: Type.Optional(Type.String({ description: 'what failed' })),
  })),
}, { description: 'what the check of each HTTP upstream found (GET <url>/models with the key it is called with); sim needs none' });

export const UpstreamHealthSchema = Type.Object({
  state: Type.String({ enum: ['ok', 'failing', 'unknown'], description: 'failing: the last call to the upstream failed (consecutiveFailures since the last success); unknown: no call recorded yet' }),
  consecutiveFailures: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()]),
  lastErrorAt: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds' }),
  lastSuccessAt: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds; a model that keeps succeeding is written at most once a minute' }),
}, { description: 'how the model\'s upstream has been answering the gateway\'s calls (the replica that recorded last)' });
