// connectComponentJupyter of GET /gpu/instance: the Jupyter tool its template lists (a tool
// named like Jupyter, of type http), its address through Gantry, and whether it answers now.
// Whether it answers is a probe of the port's endpoint (the one the proxy reaches), at most
// JUPYTER_PROBE_MS long and remembered PROBE_FRESH_MS per endpoint: a GET never waits long,
// and a page polling the instance does not probe each time.
import type { Principal } from '../../domain/roles.ts';
import { portEndpoint } from '../../domain/compute/instance-view.ts';
import { loadUndici, undiciLoaded } from '../../lib/undici.ts';
import { findTemplate, type InstanceRow } from '../../store/compute.ts';
import { mayReach, portLink, type Ports } from './ports.ts';

const JUPYTER_PROBE_MS = 500;
const PROBE_FRESH_MS = 10_000;
const probes = new Map<string, { answered: boolean; atMs: number }>();

export interface JupyterComponent {
  /** the tool's port; 0 when the instance's template lists no Jupyter */
  port: number;
  /** its address through Gantry, with a one-time ticket for this caller ('' when the caller may not reach it or it does not run) */
  address: string;
  /** the instance runs and the port answers HTTP */
  isRunning: boolean;
}

/** The Jupyter tool's port of the instance's template, if it lists one among the instance's http ports. */
export async function jupyterPort(ports: Ports, row: Pick<InstanceRow, 'templateId' | 'ports'>): Promise<number> {
  if (!row.templateId) return 0;
  const tpl = await findTemplate(ports.compute.ctx.db, row.templateId);
  const tool = tpl?.tools.find((t) => /jupyter/i.test(t.name) && t.type === 'http' && row.ports.some((p) => p.port === t.port && p.type === 'http'));
  return tool?.port ?? 0;
}

export async function jupyterComponent(ports: Ports, p: Principal, row: InstanceRow): Promise<JupyterComponent> {
  const port = await jupyterPort(ports, row);
  const endpoint = port ? portEndpoint(row, port) : '';
  if (!endpoint) return { port, address: '', isRunning: false };
  return { port, address: mayReach(p, row) ? portLink(ports, p, row, port) : '', isRunning: await answers(endpoint) };
}

/** Whether an HTTP server answers at `endpoint` (any status below 500), remembered a few seconds. */
async function answers(endpoint: string): Promise<boolean> {
  const now = Date.now(); // wall clock: freshness of a probe, not business time
  const seen = probes.get(endpoint);
  if (seen && now - seen.atMs < PROBE_FRESH_MS) return seen.answered;
  for (const [k, v] of probes) if (now - v.atMs >= PROBE_FRESH_MS) probes.delete(k);
  const { request } = undiciLoaded() ?? await loadUndici();
  let answered = false;
  try {
    const res = await request(`http://${endpoint}/`, { method: 'GET', signal: AbortSignal.timeout(JUPYTER_PROBE_MS), headersTimeout: JUPYTER_PROBE_MS });
    await res.body.dump();
    answered = res.statusCode < 500;
  } catch {
    answered = false; // no answer in time, or none at all
  }
  probes.set(endpoint, { answered, atMs: now });
  return answered;
}
