// Small HTTP helpers over app.inject(): every assertion goes through the HTTP surface.
import type { App } from '../../src/http/types.ts';

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export async function call<T = any>(app: App, method: string, url: string, opts: { token?: string; body?: unknown; query?: Record<string, string | number | boolean> } = {}): Promise<Res<T>> {
  const qs = opts.query ? '?' + new URLSearchParams(Object.entries(opts.query).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
  const res = await app.inject({
    method: method as 'GET',
    url: url + qs,
    headers: {
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(opts.body !== undefined ? { payload: JSON.stringify(opts.body) } : {}),
  });
  let body: unknown = res.body;
  try {
    body = JSON.parse(res.body);
  } catch { /* not JSON */ }
  return { status: res.statusCode, body: body as T, headers: res.headers };
}

/** Bind a token to `call` for readable tests. */
export function as(app: App, token: string) {
  return {
    get: <T = any>(url: string, query?: Record<string, string | number | boolean>) => call<T>(app, 'GET', url, { token, ...(query ? { query } : {}) }),
    post: <T = any>(url: string, body?: unknown) => call<T>(app, 'POST', url, { token, body: body ?? {} }),
    put: <T = any>(url: string, body?: unknown) => call<T>(app, 'PUT', url, { token, body: body ?? {} }),
    delete: <T = any>(url: string) => call<T>(app, 'DELETE', url, { token }),
  };
}
