// The request body the simulator reads (model.ts answers it, tools.ts picks the tools it calls).
/** A request's body: the client's JSON, read field by field (the caller validated the fields read). */
// biome-ignore lint/suspicious/noExplicitAny: the OpenAI body is open-ended JSON, not modelled
export type SimBody = Record<string, any>;
