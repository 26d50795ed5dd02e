// @ts-check
// How to call Gantry with an API key, as text to copy: the base URLs (the OpenAI-compatible
// one, the Anthropic one, the tenant API and its OpenAPI document) and a chat completion with
// curl and with the official `openai` SDK for Python and Node, naming a model the key may
// call. The key itself is shown once, at its creation: the snippets read it from the
// GANTRY_API_KEY environment variable, set from the fresh key at that moment and from a
// placeholder (its mask) afterwards. No DOM: pages/key-snippets.js shows them,
// test/console-helpers.test.ts checks them.

/** The paths under Gantry's address: docs/model-api.md (OpenAI, Anthropic), docs/tenant-api.md. */
const PATHS = { openai: '/openai/v1', anthropic: '/anthropic', openapi: '/openapi/v1', document: '/openapi.json' };

/**
 * The base URLs of Gantry at `origin` (the console's own address: the API is served beside it).
 * @param {string} origin
 */
export function baseUrls(origin) {
  return {
    openai: `${origin}${PATHS.openai}`, anthropic: `${origin}${PATHS.anthropic}`,
    openapi: `${origin}${PATHS.openapi}`, document: `${origin}${PATHS.document}`,
  };
}

/** A value inside single quotes for a POSIX shell. */
const shellQuoted = (/** @type {string} */ s) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The snippets for one key: `secret` is the key when it was just created, else undefined
 * (the placeholder `mask` stands in); `model` the model the calls name (a model the key may
 * call), or undefined when it may call none.
 * @param {{ origin: string, secret?: string | undefined, mask: string, model?: string | undefined }} o
 * @returns {{ env: string, curl: string, python: string, node: string }}
 */
export function callSnippets({ origin, secret, mask, model }) {
  const base = baseUrls(origin).openai;
  const m = model ?? '<a model this key may call>';
  const env = `export GANTRY_API_KEY=${secret ? shellQuoted(secret) : `'<the key ${mask}: shown once, when it was created>'`}`;
  const body = JSON.stringify({ model: m, messages: [{ role: 'user', content: 'Hello!' }] });
  const curl = [
    `curl ${base}/chat/completions \\`,
    '  -H "Authorization: Bearer $GANTRY_API_KEY" \\',
    '  -H "Content-Type: application/json" \\',
    `  -d ${shellQuoted(body)}`,
  ].join('\n');
  const python = [
    'import os',
    'from openai import OpenAI',
    '',
    `client = OpenAI(base_url=${JSON.stringify(base)}, api_key=os.environ["GANTRY_API_KEY"])`,
    `reply = client.chat.completions.create(model=${JSON.stringify(m)}, messages=[{"role": "user", "content": "Hello!"}])`,
    'print(reply.choices[0].message.content)',
  ].join('\n');
  const node = [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: ${JSON.stringify(base)}, apiKey: process.env.GANTRY_API_KEY });`,
    `const reply = await client.chat.completions.create({ model: ${JSON.stringify(m)}, messages: [{ role: 'user', content: 'Hello!' }] });`,
    'console.log(reply.choices[0].message.content);',
  ].join('\n');
  return { env, curl, python, node };
}
