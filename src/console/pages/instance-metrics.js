// @ts-check
// An instance's GPU, CPU and memory use over time: one GET /openapi/v1/metrics/gpu/instance
// per range chosen (the driver's samples, every 15 s, kept 7 days, averaged into the range's
// buckets), drawn by uPlot (loaded with the chart only), percent on one axis. The latest
// values are written out above the chart. A driver that does not measure (the sim,
// kubernetes) answers empty series: the page says so instead of drawing an empty chart.
import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { get } from '../api.js';
import { drawChart, ErrorBox, Loaded, useLoad, utcTime } from '../ui.js';

/** @typedef {import('../api.js').Json} Json */
/** @typedef {import('../ui.js').Submit} Submit */
/**
 * @template {EventTarget} [E=HTMLInputElement]
 * @typedef {import('../ui.js').On<E>} On
 */
/** @typedef {{ timestamp: string, value: number }} Point */
/** @typedef {{ label: string, points: Point[], stroke: string, dash?: number[] }} Line */

/** The API's limits: buckets of at least 15 s (the sampling interval), ranges of at most 7 days. */
const RANGES = {
  quarter: { label: 'Last 15 minutes, per 15 s', seconds: 900, interval: 15 },
  hour: { label: 'Last hour, per minute', seconds: 3600, interval: 60 },
  day: { label: 'Last day, per 15 minutes', seconds: 86_400, interval: 900 },
  week: { label: 'Last 7 days, per hour', seconds: 7 * 86_400, interval: 3600 },
};
/** While the instance runs, the chart is read again this often (the sampling interval). */
const REFRESH_MS = 15_000;
const GPU_COLOURS = ['#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f', '#aec7e8', '#ffbb78'];

/** @param {{ id: string, running: boolean }} props */
export function InstanceMetrics({ id, running }) {
  const [range, setRange] = useState(/** @type {keyof typeof RANGES} */ ('quarter'));
  const state = useLoad(() => {
    const r = RANGES[range];
    const endTime = Math.floor(Date.now() / 1000);
    return get('/openapi/v1/metrics/gpu/instance', { instanceId: id, startTime: endTime - r.seconds, endTime, interval: r.interval })
      .then((m) => ({ m, startTime: endTime - r.seconds, endTime }));
  }, [id, range]);
  useEffect(() => {
    if (!running || state.loading) return undefined;
    const t = setTimeout(state.reload, REFRESH_MS);
    return () => clearTimeout(t);
  }, [running, state.loading, state.data]);
  return html`<h2>Metrics</h2>
    <form class="inline" aria-label="Metrics range" onSubmit=${(/** @type {Submit} */ e) => e.preventDefault()}>
      <label>Range<select value=${range} onChange=${(/** @type {On<HTMLSelectElement>} */ e) => setRange(/** @type {keyof typeof RANGES} */ (e.currentTarget.value))}>
        ${Object.entries(RANGES).map(([k, v]) => html`<option value=${k}>${v.label}</option>`)}</select></label>
      <button type="button" onClick=${state.reload}>Refresh metrics</button>
    </form>
    <${Loaded} state=${state}>${(/** @type {{ m: Json, startTime: number, endTime: number }} */ d) => html`<${Metrics} ...${d} />`}<//>`;
}

/**
 * The lines to draw: GPU utilization and GPU memory (means over the instance's GPUs), each GPU's
 * utilization when it has several, CPU and memory.
 * @param {Json} m
 * @returns {Line[]}
 */
function linesOf(m) {
  /** @type {Line[]} */
  const lines = [
    { label: 'GPU utilization', points: m.gpuUtilization?.avg ?? [], stroke: '#2ca02c' },
    { label: 'GPU memory', points: m.gpuMemUtilization?.avg ?? [], stroke: '#ff7f0e' },
  ];
  const gpus = /** @type {{ gpuId: string, items: Point[] }[]} */ (m.gpuUtilization?.gpuIds ?? []);
  if (gpus.length > 1) {
    lines.push(...gpus.map((g, n) => ({ label: `GPU ${n} (${g.gpuId.slice(0, 12)})`, points: g.items, stroke: GPU_COLOURS[n % GPU_COLOURS.length] ?? '#7f7f7f', dash: [4, 3] })));
  }
  lines.push({ label: 'CPU', points: m.cpuUtilization ?? [], stroke: '#1f77b4' }, { label: 'Memory', points: m.memUtilization ?? [], stroke: '#d62728' });
  return lines;
}

/** @param {{ m: Json, startTime: number, endTime: number }} props */
function Metrics({ m, startTime, endTime }) {
  const lines = useMemo(() => linesOf(m).filter((l) => l.points.length > 0), [m]);
  if (!lines.length) {
    return html`<p class="muted" data-testid="no-metrics">No measurements in this range: the instance did not run in it, or its driver does not measure (only the docker driver samples GPU, CPU and memory use, every 15 s).</p>`;
  }
  /** @param {Line} l */
  const latest = (l) => `${l.label} ${(l.points.at(-1)?.value ?? 0).toFixed(0)}%`;
  return html`<p class="muted" aria-label="Latest measurements">Latest: ${lines.map(latest).join(' · ')}</p>
    <${Chart} lines=${lines} startTime=${startTime} endTime=${endTime} />`;
}

/** @param {{ lines: Line[], startTime: number, endTime: number }} props */
function Chart({ lines, startTime, endTime }) {
  const ref = useRef(/** @type {HTMLDivElement | undefined} */ (undefined));
  const [error, setError] = useState(/** @type {import('../ui.js').Shown | undefined} */ (undefined));
  useEffect(() => {
    // one time axis for every line: the buckets any of them has, a gap where a line has none
    const xs = [...new Set(lines.flatMap((l) => l.points.map((p) => Number(p.timestamp))))].sort((a, b) => a - b);
    const ys = lines.map((l) => {
      const at = new Map(l.points.map((p) => [Number(p.timestamp), p.value]));
      return xs.map((x) => at.get(x) ?? null);
    });
    return drawChart(ref, (UPlot, el) => {
      const width = Math.min(900, el.clientWidth || 600);
      const utc = utcTime(UPlot);
      return new UPlot({
        width, height: 240, title: 'Utilization, percent', tzDate: utc.tzDate,
        series: [utc.series, ...lines.map((l) => ({ label: l.label, stroke: l.stroke, width: 2, scale: 'pct', ...(l.dash ? { dash: l.dash } : {}) }))],
        scales: { x: { time: true, range: [startTime, endTime] }, pct: { range: [0, 100] } },
        axes: [utc.axis, { scale: 'pct', stroke: 'currentColor', label: '%' }],
      }, [xs, ...ys], el);
    }, setError);
  }, [lines, startTime, endTime]);
  return html`<div class="chart" ref=${ref} role="img" aria-label="GPU, CPU and memory utilization over time"></div><${ErrorBox} error=${error} />`;
}
