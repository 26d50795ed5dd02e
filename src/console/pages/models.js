// @ts-check
// Models (loaded when first opened): the LLM models the signed-in key may call, with their
// prices (per million tokens), then the media model catalogue (media-catalogue.js).
import { html } from 'htm/preact';
import { get } from '../api.js';
import { Loaded, Table, useLoad } from '../ui.js';
import { money } from '../money.js';
import { MediaCatalogue } from './media-catalogue.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Column<Json>[]} Columns */

export function Models() {
  const state = useLoad(() => get('/openai/v1/models'));
  return html`<h1>Models</h1>
    <h2>Language models</h2>
    <${Loaded} state=${state}>${(/** @type {Json} */ d) => html`<${Table} label="Models" rows=${d.data} empty="No model is open to this key." columns=${/** @type {Columns} */ ([
      { label: 'Model', cell: (m) => html`<strong>${m.id}</strong>${m.title && m.title !== m.id ? html`<div class="muted">${m.title}</div>` : ''}` },
      { label: 'Context', num: true, cell: (m) => (m.context_size ? m.context_size.toLocaleString('en-US') : '—') },
      { label: 'Input / 1M tokens', num: true, cell: (m) => money(m.input_token_price_per_m) },
      { label: 'Output / 1M tokens', num: true, cell: (m) => money(m.output_token_price_per_m) },
      { label: 'About', cell: (m) => m.description || '' },
    ])} />`}<//>
    <${MediaCatalogue} />`;
}
