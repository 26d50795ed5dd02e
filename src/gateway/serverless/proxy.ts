// The serverless data plane's reverse proxy: a call to an endpoint's URL reaches a worker of
// the caller's team's endpoint with the URL's prefix removed, streaming both ways. The router
// (domain/serverless/router.ts) picks the worker or keeps the call waiting for one.
// A worker is a tenant's code: what passes each way is gateway/forwarding.ts's rule (no
// Gantry credential in, nothing that reaches Gantry's cookies or the console's origin out).
// Framework-free: the route (http/routes/serverless-proxy/proxy.ts) hands the call
// in and writes the answer out.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { loadUndici, undiciLoaded } from '../../lib/undici.ts';
import { forwardedHeaders, hasBody, returnedHeaders } from '../forwarding.ts';
import type { ServerlessPlane } from '../../domain/serverless/plane.ts';
import type { ServerlessRouter } from '../../domain/serverless/router.ts';
import { workerTimedOut, workerUnreachable } from './errors.ts';

type EndpointRow = Awaited<ReturnType<ServerlessRouter['resolve']>>;

/** A call to an endpoint's URL, as the HTTP layer received it. */
export interface EndpointCall {
  teamId: string;
  appName: string;
  method: string;
  /** the URL as routed: `/serverless/{appName}/…` (the host form rewritten to it) */
  url: string;
  headers: IncomingHttpHeaders;
  /** the request's bytes, passed on as they come (read only when the method and headers say there is a body) */
  body: Readable;
  ip: string;
  protocol: string;
  requestId: string;
  /** called at `{appName}.{domain}`: an origin apart from the console's */
  hostForm: boolean;
}

/** The worker's answer as the client gets it: its status, the headers that may pass, its body as it streams. */
export interface WorkerAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

/** One call's end: `cut` when the endpoint's requestTimeout ended it, rather than the client leaving. */
interface CallEnd {
  abort: AbortController;
  cut: boolean;
}

/**
 * Pass `call` to a worker of its endpoint (waiting in the queue for a slot) and answer with
 * the worker's answer. `clientGone` aborts both ends; the endpoint's requestTimeout does too.
 * The endpoint's metrics count every call that ends here, except one whose client left.
 */
export async function callEndpoint(plane: Pick<ServerlessPlane, 'router' | 'metrics'>, call: EndpointCall, clientGone: AbortSignal): Promise<WorkerAnswer> {
  const ep = await plane.router.resolve(call.teamId, call.appName);
  const end: CallEnd = { abort: new AbortController(), cut: false };
  const onGone = () => end.abort.abort();
  if (clientGone.aborted) onGone();
  else clientGone.addEventListener('abort', onGone, { once: true });
  try {
    const answer = await forward(plane.router, ep, call, end);
    plane.metrics.request(ep.id, answer.status < 500);
    return answer;
  } catch (e) {
    if (!end.abort.signal.aborted || end.cut) plane.metrics.request(ep.id, false);
    throw e;
  }
}

/** Take a worker's slot and pass the call on; the slot is given back when the answer's body closes. */
async function forward(router: ServerlessRouter, ep: EndpointRow, call: EndpointCall, end: CallEnd): Promise<WorkerAnswer> {
  const { request } = undiciLoaded() ?? await loadUndici(); // before a worker's slot is taken
  const d = await router.dispatch(ep, end.abort.signal);
  const timeoutS = ep.spec.workerConfig.requestTimeout;
  const timer = setTimeout(() => {
    end.cut = true;
    end.abort.abort();
  }, timeoutS * 1000);
  const done = () => { clearTimeout(timer); d.release(); };
  let res: Dispatcher.ResponseData;
  try {
    res = await request(`http://${d.worker.address}${restOf(call)}`, {
      method: call.method as Dispatcher.HttpMethod, headers: forwardedHeaders(call), body: hasBody(call.method, call.headers) ? call.body : undefined,
      signal: end.abort.signal, headersTimeout: timeoutS * 1000, bodyTimeout: timeoutS * 1000,
    });
  } catch (e) {
    done();
    throw end.cut ? workerTimedOut(d.worker.id, timeoutS) : workerUnreachable(d.worker.id, e);
  }
  const body = res.body as unknown as Readable;
  body.once('close', done);
  end.abort.signal.addEventListener('abort', () => body.destroy(new Error(end.cut ? `cut after the endpoint's requestTimeout of ${timeoutS} s` : 'the client went away')), { once: true });
  const headers = returnedHeaders(res.headers, call.hostForm);
  headers['x-gantry-worker-id'] = d.worker.id;
  headers['x-gantry-queue-ms'] = String(d.queueMs);
  return { status: res.statusCode, headers, body };
}

/** The path under the endpoint's URL, the query kept: `/serverless/app/x?y` → `/x?y`. */
function restOf(call: EndpointCall): string {
  const prefix = `/serverless/${call.appName}`;
  const rest = call.url.startsWith(prefix) ? call.url.slice(prefix.length) : '/';
  return rest.startsWith('/') ? rest : `/${rest}`;
}
