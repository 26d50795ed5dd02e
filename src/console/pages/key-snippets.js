// @ts-check
// How to call the API with one key (the Keys page, issue 45): the base URLs, the models the key
// may call (GET /openapi/v2/user/key/{id}/models: its policy and its member's applied, as a
// call with it would be judged), and a curl and `openai` SDK snippet naming one of them, each
// with a copy button. The text is call-snippets.js's.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { CopyButton, Loaded, useLoad } from '../ui.js';
import { baseUrls, callSnippets } from '../call-snippets.js';

/** @typedef {import('../api.js').Json} Json */

/**
 * @param {{ k: { keyId: string, name: string, mask: string }, secret?: string | undefined }} props `secret`: the key just created (shown once)
 */
export function KeySnippets({ k, secret }) {
  const state = useLoad(() => get(`/openapi/v2/user/key/${encodeURIComponent(k.keyId)}/models`), [k.keyId]);
  const [chosen, setChosen] = useState(/** @type {string | undefined} */ (undefined));
  const urls = baseUrls(location.origin);
  return html`<section class="snippets" aria-label=${`Calling the API with ${k.name}`}>
    <h2>Calling the API with ${k.name}</h2>
    <ul class="base-urls" aria-label="Base URLs">
      ${[['OpenAI-compatible base', urls.openai], ['Anthropic base', urls.anthropic], ['Tenant API (openapi) base', urls.openapi], ['OpenAPI document', urls.document]].map(([what, url]) => html`
        <li><span class="muted">${what}:</span> <code>${url}</code> <${CopyButton} text=${url} label=${`Copy the ${what} URL`} /></li>`)}
    </ul>
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => {
      const models = /** @type {string[]} */ (d.data.map((/** @type {Json} */ m) => m.id)).sort();
      const model = chosen && models.includes(chosen) ? chosen : models[0];
      const s = callSnippets({ origin: location.origin, secret, mask: k.mask, model });
      return html`
        <p>${models.length ? html`Models this key may call: <span data-testid="key-models">${models.join(', ')}</span>` : html`<span class="bad">This key may call no model</span> (its model access, its member's, or the team's models leave none).`}</p>
        ${models.length > 1 && html`<label>Model in the snippets<select value=${model} onChange=${(/** @type {Event & { currentTarget: HTMLSelectElement }} */ e) => setChosen(e.currentTarget.value)}>
          ${models.map((id) => html`<option value=${id}>${id}</option>`)}</select></label>`}
        ${[['The key', s.env, 'Copy the key line'], ['curl', s.curl], ['Python (openai)', s.python], ['Node (openai)', s.node]].map(([what, text, copy]) => html`
          <div class="snippet"><h3>${what}</h3><pre aria-label=${`${what} snippet`}><code>${text}</code></pre><${CopyButton} text=${text ?? ''} label=${copy ?? `Copy the ${what} snippet`} /></div>`)}`;
    }}<//>
  </section>`;
}
