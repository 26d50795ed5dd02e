// @ts-check
// An endpoint's requests and workers over time: one GET /endpoint/metrics per range chosen,
// drawn by uPlot (loaded with this chart only), requests per bucket on the left axis and
// workers (means over the reconciler's passes) on the right.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api.js';
import { drawChart, ErrorBox, Loaded, useLoad, utcTime } from '../ui.js';
import { GPU } from './instances.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */

/** The API's limits: a day by minute, 31 days by hour (30 are kept). */
const RANGES = {
  hour: { label: 'Last hour, per minute', step: 'minute', seconds: 3600 },
  day: { label: 'Last day, per minute', step: 'minute', seconds: 86_400 },
  month: { label: 'Last 30 days, per hour', step: 'hour', seconds: 30 * 86_400 },
};

/** @param {{ id: string }} props */
export function EndpointMetrics({ id }) {
  const [range, setRange] = useState(/** @type {keyof typeof RANGES} */ ('hour'));
  const state = useLoad(() => {
    const r = RANGES[range];
    const endTime = Math.floor(Date.now() / 1000);
    return get(`${GPU}/endpoint/metrics`, { id, step: r.step, startTime: endTime - r.seconds, endTime });
  }, [id, range]);
  return html`<h2>Requests and workers</h2>
    <form class="inline" aria-label="Metrics range" onSubmit=${(/** @type {Submit} */ e) => e.preventDefault()}>
      <label>Range<select value=${range} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => setRange(/** @type {keyof typeof RANGES} */ (e.currentTarget.value))}>
        ${Object.entries(RANGES).map(([k, v]) => html`<option value=${k}>${v.label}</option>`)}</select></label>
      <button type="button" onClick=${state.reload}>Refresh</button>
    </form>
    <${Loaded} state=${state}>${(/** @type {Json} */ m) => html`<${Chart} m=${m} />`}<//>`;
}

/** @param {{ m: Json }} props */
function Chart({ m }) {
  const ref = useRef(/** @type {HTMLDivElement | undefined} */ (undefined));
  const [error, setError] = useState(/** @type {import('../ui.js').Shown | undefined} */ (undefined));
  useEffect(() => {
    const d = m.data;
    const per = m.step === 'hour' ? 'hour' : 'minute';
    return drawChart(ref, (UPlot, el) => {
      const width = Math.min(900, el.clientWidth || 600);
      const utc = utcTime(UPlot);
      /** @type {(label: string, stroke: string, scale: string, extra?: import('uplot').Series) => import('uplot').Series} */
      const line = (label, stroke, scale, extra = {}) => ({ label, stroke, scale, width: 2, ...extra });
      return new UPlot({
        width, height: 260, title: `Requests per ${per} and workers`, tzDate: utc.tzDate,
        series: [utc.series,
          line('answered', '#2ca02c', 'req'), line('failed', '#d62728', 'req'), line('waiting (peak)', '#ff7f0e', 'req', { dash: [4, 4] }),
          line('workers running', '#1f77b4', 'wk'), line('workers starting', '#9467bd', 'wk', { dash: [2, 3] }), line('workers desired', '#7f7f7f', 'wk', { dash: [6, 3] })],
        scales: { x: { time: true, range: [m.startTime, m.endTime] }, req: { range: (_, _min, max) => [0, Math.max(1, max)] }, wk: { range: (_, _min, max) => [0, Math.max(1, max)] } },
        axes: [utc.axis, { scale: 'req', stroke: 'currentColor', label: `requests / ${per}` },
          { scale: 'wk', side: 1, stroke: 'currentColor', label: 'workers', grid: { show: false } }],
      }, [d.map((/** @type {Json} */ p) => p.time), d.map((/** @type {Json} */ p) => p.answered), d.map((/** @type {Json} */ p) => p.failed), d.map((/** @type {Json} */ p) => p.waitingPeak),
        d.map((/** @type {Json} */ p) => p.running), d.map((/** @type {Json} */ p) => p.starting), d.map((/** @type {Json} */ p) => p.desired)], el);
    }, setError);
  }, [m]);
  const total = m.data.reduce((/** @type {{ answered: number, failed: number }} */ a, /** @type {Json} */ p) => ({ answered: a.answered + p.answered, failed: a.failed + p.failed }), { answered: 0, failed: 0 });
  return html`<p class="muted">${total.answered} answered, ${total.failed} failed in this range.</p>
    <div class="chart" ref=${ref} role="img" aria-label="Requests and workers over time"></div><${ErrorBox} error=${error} />`;
}
