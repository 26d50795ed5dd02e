// A person's console calls through `app.inject`, as the console makes them: the session cookie
// and its CSRF token when signed in, JSON bodies, and the session a sign-in answer opens (its
// `gantry_session` cookie and the CSRF token in its body). Shared by the people tests.
import type { TestApp } from './app.ts';

export interface PersonSession { cookie: string; csrf: string; body: any }

export interface PersonAnswer { status: number; body: any; id: string; session: PersonSession | undefined }

/** `send(method, url, body?, session?)` against `h`'s app. */
export function personSender(h: () => TestApp) {
  return async function send(method: string, url: string, body?: unknown, s?: PersonSession): Promise<PersonAnswer> {
    const headers: Record<string, string> = {};
    if (s) Object.assign(headers, { cookie: s.cookie, 'x-csrf-token': s.csrf });
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await h().app.inject({ method: method as 'GET', url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
    const m = /^gantry_session=([A-Za-z0-9_-]+);/.exec(String(res.headers['set-cookie'] ?? ''));
    const json = res.body ? JSON.parse(res.body) : undefined;
    const session = m ? { cookie: `gantry_session=${m[1]}`, csrf: json.csrfToken as string, body: json } : undefined;
    return { status: res.statusCode, body: json, id: res.headers['x-request-id'] as string, session };
  };
}
