// The base paths the OpenAI-compatible routes are served under (compat.md); their request
// and answer shapes are the gateway's (gateway/openai/schemas.ts).

/** `/openai/v1` is documented; the two aliases serve the same routes. */
export const OPENAI_BASES = ['/openai/v1', '/openai', '/v3/openai'] as const;
