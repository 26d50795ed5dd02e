// The base paths the OpenAI-compatible routes are served under (compat.md); their request
// and answer shapes are the gateway's (gateway/openai/schemas.ts). Every route module of
// openai/, files/ and batches/ registers itself once per base: one handler, one auth, error
// family (llm), admission and billing, whatever the base.
//
// Two renderings of the same objects: the interface's bases answer files and batches in the
// interface's shapes (upper-case batch statuses, timestamps as strings, `errors` a string),
// and `/v1`, the OpenAI-flavoured base, answers them in OpenAI's own (lower-case statuses,
// numeric timestamps, null file ids until written, file `status`), so a client written for
// OpenAI (`new OpenAI({ baseURL: '<gantry>/v1' })`) works unchanged
// (docs/compat-decisions.md, "The OpenAI-flavoured base").

/** `/openai/v1` is documented; `/openai` and `/v3/openai` serve the same routes; `/v1` too, in OpenAI's shapes. */
export const OPENAI_BASES = ['/openai/v1', '/openai', '/v3/openai', '/v1'] as const;
export type OpenAIBase = (typeof OPENAI_BASES)[number];

/** Whose shapes a base answers files and batches in. */
export type Rendering = 'interface' | 'openai';

export function renderingOf(base: OpenAIBase): Rendering {
  return base === '/v1' ? 'openai' : 'interface';
}

/** A route's summary on one of the bases (the OpenAPI document lists each base's routes). */
export function summary(base: OpenAIBase, what: string): string {
  if (base === '/openai/v1') return what;
  return base === '/v1' ? `${what} (OpenAI's base: OpenAI's shapes)` : `${what} (alias of /openai/v1)`;
}
