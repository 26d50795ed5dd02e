// A web terminal's client, as a browser's: opens connectComponentWebTerminal.url, collects
// what the terminal writes, and tells how it closed; a refused connect rejects with the HTTP
// answer (status and the unified body), which `refusal` returns.
import assert from 'node:assert/strict';
import WebSocket from 'ws';

export interface Term {
  ws: WebSocket;
  /** everything the terminal wrote so far */
  out(): string;
  send(text: string): void;
  /** resolves with the close code once the socket is closed */
  closed: Promise<number>;
  /** and with the close frame's reason */
  reason: Promise<string>;
}

/** Opens a terminal URL as a browser would; rejects with the HTTP answer when refused. */
export function openTerminal(url: string): Promise<Term> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let out = '';
    const closing = new Promise<[number, string]>((r) => ws.once('close', (code, reason) => r([code, reason.toString('utf8')])));
    ws.on('message', (d: Buffer, binary: boolean) => {
      if (binary) out += d.toString('utf8');
    });
    ws.once('open', () => resolve({
      ws, out: () => out, send: (text) => ws.send(Buffer.from(text)), closed: closing.then(([code]) => code), reason: closing.then(([, why]) => why),
    }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => reject(Object.assign(new Error(`HTTP ${res.statusCode}: ${body}`), { status: res.statusCode, body: JSON.parse(body), headers: res.headers })));
    });
    ws.once('error', reject);
  });
}

export interface Refusal {
  status: number;
  body: { reason?: string; message?: string; metadata?: Record<string, unknown> };
  headers: Record<string, unknown>;
}

/** The HTTP answer a connect was refused with (fails when the terminal opens). */
export async function refusedWith(url: string): Promise<Refusal> {
  try {
    const t = await openTerminal(url);
    t.ws.terminate();
  } catch (err) {
    const e = err as Partial<Refusal>;
    if (e.status) return { status: e.status, body: e.body ?? {}, headers: e.headers ?? {} };
    throw err;
  }
  assert.fail(`${url} opened a terminal`);
}

/** The status and reason a refused connect was answered with. */
export async function refusal(url: string): Promise<[number, string]> {
  const r = await refusedWith(url);
  return [r.status, r.body.reason ?? ''];
}
