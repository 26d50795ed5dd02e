// The console's files, served by this process (no build step): the page, its ES modules
// (src/console) and the few libraries it imports, straight from the project's dependencies.
// Libraries are under versioned URLs and cached for a year; the page and its modules are
// revalidated by ETag. Each file is read once and kept with its gzip and brotli forms.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../../lib/errors.ts';
import { errors, type DocResponse } from '../../schemas.ts';
import type { App } from '../../types.ts';

const APP_DIR = join(import.meta.dirname, '../../../console');

/** Bare specifiers the modules import → [package, file inside it]; the import map points them at /console/vendor. */
const VENDOR: Record<string, [pkg: string, file: string]> = {
  preact: ['preact', 'dist/preact.mjs'],
  'preact/hooks': ['preact', 'hooks/dist/hooks.mjs'],
  htm: ['htm', 'dist/htm.mjs'],
  'htm/preact': ['htm', 'preact/index.mjs'],
  '@preact/signals-core': ['@preact/signals-core', 'dist/signals-core.mjs'],
  '@preact/signals': ['@preact/signals', 'dist/signals.mjs'],
  uplot: ['uplot', 'dist/uPlot.esm.js'],
  // an instance's web terminal (console/terminal.js, loaded when a terminal opens)
  '@xterm/xterm': ['@xterm/xterm', 'lib/xterm.mjs'],
  '@xterm/addon-fit': ['@xterm/addon-fit', 'lib/addon-fit.mjs'],
};
/** Stylesheets of libraries, linked by URL (not imported). */
const VENDOR_FILES: [pkg: string, file: string][] = [['uplot', 'dist/uPlot.min.css'], ['@xterm/xterm', 'css/xterm.css']];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.json': 'application/json',
};

interface Asset {
  body: Buffer;
  /** compressed on first use and kept: compressing every file at start cost ~0.4 s of CPU */
  gzip(): Buffer;
  br(): Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

function asset(body: Buffer, type: string, immutable: boolean): Asset {
  const compressible = !type.startsWith('image/png');
  let gz: Buffer | undefined;
  let br: Buffer | undefined;
  return {
    body, type, immutable,
    gzip: () => (gz ??= compressible ? gzipSync(body, { level: 9 }) : body),
    br: () => (br ??= compressible ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }) : body),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

function packageDir(pkg: string): { dir: string; version: string } {
  const manifest = findPackageJSON(pkg, import.meta.url);
  if (!manifest) throw new Error(`the console needs the package ${pkg}`);
  return { dir: dirname(manifest), version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version };
}

function vendorUrl(pkg: string, file: string): string {
  return `/console/vendor/${pkg}@${packageDir(pkg).version}/${file}`;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** Every file the console serves, by URL path. */
export function consoleAssets(): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const [pkg, file] of [...Object.values(VENDOR), ...VENDOR_FILES]) {
    out.set(vendorUrl(pkg, file), asset(readFileSync(join(packageDir(pkg).dir, file)), TYPES[extname(file)] ?? 'application/octet-stream', true));
  }
  for (const p of filesUnder(APP_DIR)) {
    const rel = relative(APP_DIR, p).split(sep).join('/');
    if (rel === 'index.html' || rel === 'tsconfig.json') continue; // the page is built below; the type-check's project is no asset
    out.set(`/console/${rel}`, asset(readFileSync(p), TYPES[extname(p)] ?? 'application/octet-stream', false));
  }
  const importMap = JSON.stringify({ imports: Object.fromEntries(Object.entries(VENDOR).map(([spec, [pkg, file]]) => [spec, vendorUrl(pkg, file)])) });
  const html = readFileSync(join(APP_DIR, 'index.html'), 'utf8')
    .replace('<!--importmap-->', `<script type="importmap">${importMap}</script>`)
    .replace('<!--uplot-css-->', vendorUrl('uplot', 'dist/uPlot.min.css'));
  out.set('/console', asset(Buffer.from(html), TYPES['.html']!, false));
  importMapHash = createHash('sha256').update(importMap).digest('base64');
  return out;
}

let importMapHash = '';

/**
 * The page may run its own modules and its import map only; nothing is framed or sent
 * elsewhere. Images may also come from https addresses: media models' covers (`cover_url`)
 * are usually hosted elsewhere; an image runs nothing, and no referrer is sent.
 */
function securityHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', [
    "default-src 'self'", `script-src 'self' 'sha256-${importMapHash}'`, "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'",
  ].join('; '));
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
}

function send(req: FastifyRequest, reply: FastifyReply, a: Asset) {
  reply.header('content-type', a.type);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', a.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  reply.header('etag', a.etag);
  reply.header('vary', 'accept-encoding');
  if (a.type.startsWith('text/html')) securityHeaders(reply);
  if (req.headers['if-none-match'] === a.etag) return reply.code(304).send();
  const accepted = String(req.headers['accept-encoding'] ?? '');
  if (/\bbr\b/.test(accepted) && a.br() !== a.body) {
    reply.header('content-encoding', 'br');
    return reply.send(a.br());
  }
  if (/\bgzip\b/.test(accepted) && a.gzip() !== a.body) {
    reply.header('content-encoding', 'gzip');
    return reply.send(a.gzip());
  }
  return reply.send(a.body);
}

export default function consoleFiles(app: App): void {
  const assets = consoleAssets();
  const config = { family: 'account' as const, auth: { kind: 'public' as const } };
  const file = (type: string, description: string): Record<number, DocResponse> => ({ 200: { description, content: { [type]: { schema: Type.String() } } } });
  app.get('/console', {
    config: { ...config, docResponses: file('text/html', 'the console\'s page') },
    schema: { tags: ['console'], summary: 'The web console (sign in with an API key or the operator token)' },
  }, async (req, reply) => send(req, reply, assets.get('/console')!));
  app.get('/console/*', {
    config: { ...config, docResponses: file('text/javascript', 'a module, stylesheet or image of the console') },
    schema: {
      tags: ['console'], summary: 'The console\'s modules, styles and libraries (static files)',
      params: Type.Object({ '*': Type.String({ description: 'a file of the console' }) }),
      response: errors(404),
    },
  }, async (req, reply) => {
    const path = req.url.split('?')[0]!.replace(/\/+$/, '');
    const a = assets.get(path);
    if (!a) throw new AppError('NOT_FOUND', 'no such console file', { rule: 'console file' });
    return send(req, reply, a);
  });
}
