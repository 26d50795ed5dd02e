// @ts-check
// An instance's web terminal: xterm.js on the WebSocket of connectComponentWebTerminal.url
// (GET /gpu/instance gives it, with a ticket used once and good for minutes: it is read again
// each time the terminal opens). Loaded only when a terminal is opened (xterm is ~340 kB).
// The socket goes to this page's own origin (the URL's path and ticket; the page's CSP allows
// 'self' only). Binary frames carry the terminal's bytes both ways; the terminal's size goes
// as a text frame `{"type":"resize","cols":C,"rows":R}`.
import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';

/** xterm's stylesheet, beside its module (the import map names the module's versioned URL). */
function loadStyles() {
  if (document.querySelector('link[data-xterm]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = import.meta.resolve('@xterm/xterm').replace(/lib\/xterm\.mjs$/, 'css/xterm.css');
  link.dataset.xterm = '';
  document.head.append(link);
}

/** Why the server closed the socket, in words (http/terminal-socket.ts's codes). */
const CLOSED = /** @type {Record<number, string>} */ ({
  1000: 'the shell ended', 1001: 'Gantry is stopping', 1006: 'the connection was lost', 1011: 'the connection to the container failed',
  4000: 'closed after a long idle time', 4001: 'the terminal reached its time limit',
  4003: 'access to the instance was withdrawn',
});

/**
 * @param {{ url: string, onClose: () => void }} props `url`: connectComponentWebTerminal.url
 */
export function InstanceTerminal({ url, onClose }) {
  const box = useRef(/** @type {HTMLDivElement | null} */ (null));
  const [state, setState] = useState('Connecting…');
  useEffect(() => {
    loadStyles();
    const term = new Terminal({ cursorBlink: true, convertEol: false, fontSize: 13, scrollback: 5000 });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(/** @type {HTMLDivElement} */ (box.current));
    fit.fit();
    const given = new URL(url);
    const at = new URL(`${given.pathname}${given.search}`, location.href);
    at.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    at.searchParams.set('cols', String(term.cols));
    at.searchParams.set('rows', String(term.rows));
    const ws = new WebSocket(at);
    ws.binaryType = 'arraybuffer';
    const encoder = new TextEncoder();
    ws.onopen = () => { setState('Connected'); term.focus(); };
    ws.onmessage = (e) => { if (e.data instanceof ArrayBuffer) term.write(new Uint8Array(e.data)); };
    ws.onclose = (e) => setState(`Closed: ${CLOSED[e.code] ?? `code ${e.code}`}${e.reason ? ` (${e.reason})` : ''}`);
    const send = (/** @type {Uint8Array<ArrayBuffer>} */ bytes) => { if (ws.readyState === WebSocket.OPEN) ws.send(bytes); };
    const typed = term.onData((d) => send(encoder.encode(d)));
    // bytes xterm sends as a binary string (some mouse reports)
    const binary = term.onBinary((d) => send(Uint8Array.from(d, (c) => c.charCodeAt(0) & 0xff)));
    const resized = term.onResize(({ cols, rows }) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'resize', cols, rows })); });
    const onWindow = () => fit.fit();
    addEventListener('resize', onWindow);
    return () => {
      removeEventListener('resize', onWindow);
      typed.dispose();
      binary.dispose();
      resized.dispose();
      ws.close();
      term.dispose();
    };
  }, [url]);
  return html`<div class="terminal-panel">
    <p><span role="status">${state}</span> <button type="button" onClick=${onClose}>Close terminal</button></p>
    <div class="terminal" ref=${box} aria-label="Terminal"></div>
  </div>`;
}
