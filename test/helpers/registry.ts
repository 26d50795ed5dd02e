// A container registry of the test's own on 127.0.0.1: the part of the distribution (v2) API
// a pull uses (GET/HEAD of /v2/, manifests and blobs), with token auth as Docker Hub and most
// registries do it, so Docker and Podman can pull a public repository anonymously and a
// private one with a credential: /v2/ answers 401 with a Bearer challenge; /token gives a
// token to anyone (anonymous without credentials, the user's with right ones; wrong ones are
// 401); a private repository answers only a token of one of its users. It serves images
// made here, content-addressed: one layer (busybox-static's rootfs, as the engines' test
// image, gzipped), a config saying GANTRY_TEST_IMAGE=<marker> (so two images differ), a
// schema 2 manifest. Every request is logged with whose token it carried, so a test sees what
// the engine asked and which layers it downloaded.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildRootfs } from './engines.ts';

const MANIFEST_TYPE = 'application/vnd.docker.distribution.manifest.v2+json';
const SERVICE = 'gantry-test-registry';

export interface RegistryImage {
  /** the id an engine gives the image: its config's digest */
  id: string;
  manifest: Buffer;
  manifestDigest: string;
  config: Buffer;
  layer: { digest: string; data: Buffer };
}

export interface RegistryRequest {
  method: string;
  path: string;
  /** whose token it carried: a user, '' for an anonymous one, undefined for none; on /token, who asked (`!name` for a wrong password) */
  user: string | undefined;
  /** the scope a token was asked for */
  scope?: string | undefined;
}

/** Who may pull a repository: anyone with a token (public), or its users. */
export interface RepoAccess {
  public?: boolean;
  users?: string[];
}

/** What every manifest request of a repository is answered with instead of a manifest (a server that is no registry). */
export interface RawAnswer {
  status: number;
  contentType: string;
  body: string;
}

interface Repo {
  access: Required<RepoAccess>;
  tags: Map<string, RegistryImage>;
  raw?: RawAnswer | undefined;
}

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

let layerCache: { digest: string; diffId: string; data: Buffer } | undefined;

/** busybox-static's rootfs as a gzipped tar layer, built once per process. */
function busyboxLayer(): { digest: string; diffId: string; data: Buffer } {
  if (layerCache) return layerCache;
  const dir = mkdtempSync(join(tmpdir(), 'gantry-registry-rootfs-'));
  try {
    buildRootfs(dir);
    const tar = spawnSync('tar', ['-C', dir, '--owner=0', '--group=0', '--numeric-owner', '-c', '.'], { maxBuffer: 64 * 1024 * 1024 });
    if (tar.status !== 0) throw new Error(`tar of the registry's rootfs: ${tar.stderr}`);
    const data = gzipSync(tar.stdout);
    layerCache = { digest: sha256(data), diffId: sha256(tar.stdout), data };
    return layerCache;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An image of the busybox layer whose config says GANTRY_TEST_IMAGE=<marker> (a different marker: a different image id). */
export function registryImage(marker: string): RegistryImage {
  const layer = busyboxLayer();
  const architecture = process.arch === 'x64' ? 'amd64' : process.arch;
  const config = Buffer.from(JSON.stringify({
    architecture, os: 'linux', created: '2026-01-01T00:00:00Z',
    config: { Env: ['PATH=/bin', `GANTRY_TEST_IMAGE=${marker}`], Cmd: ['sh'] },
    rootfs: { type: 'layers', diff_ids: [layer.diffId] },
    history: [{ created: '2026-01-01T00:00:00Z', created_by: `gantry test registry: ${marker}` }],
  }));
  const manifest = Buffer.from(JSON.stringify({
    schemaVersion: 2, mediaType: MANIFEST_TYPE,
    config: { mediaType: 'application/vnd.docker.container.image.v1+json', size: config.length, digest: sha256(config) },
    layers: [{ mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip', size: layer.data.length, digest: layer.digest }],
  }));
  return { id: sha256(config), manifest, manifestDigest: sha256(manifest), config, layer: { digest: layer.digest, data: layer.data } };
}

/** An answer to one request. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

function errors(status: number, code: string, message: string, headers: Record<string, string> = {}): Answer {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ errors: [{ code, message }] }) };
}

function send(req: IncomingMessage, res: ServerResponse, a: Answer): void {
  const data = typeof a.body === 'string' ? Buffer.from(a.body) : a.body;
  res.writeHead(a.status, { 'docker-distribution-api-version': 'registry/2.0', 'content-length': String(data.length), ...a.headers });
  res.end(req.method === 'HEAD' ? undefined : data);
}

export class TestRegistry {
  readonly requests: RegistryRequest[] = [];
  /** `127.0.0.1:<port>`, the registry part of its images' names */
  readonly host: string;
  private readonly server: Server;
  private readonly users = new Map<string, string>();
  private readonly repos = new Map<string, Repo>();
  /** token → its user ('' anonymous) */
  private readonly tokens = new Map<string, string>();

  private constructor(server: Server) {
    this.server = server;
    this.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  static async start(): Promise<TestRegistry> {
    let registry: TestRegistry | undefined;
    const server = createServer((req, res) => send(req, res, registry!.answer(req)));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    registry = new TestRegistry(server);
    return registry;
  }

  addUser(name: string, password: string): void {
    this.users.set(name, password);
  }

  /** Tags `image` as `repo:tag`, and sets who may pull the repository. */
  put(repo: string, tag: string, image: RegistryImage, access: RepoAccess = {}): void {
    const r = this.repos.get(repo) ?? { access: { public: false, users: [] }, tags: new Map() };
    r.tags.set(tag, image);
    r.access = { public: access.public ?? false, users: access.users ?? [] };
    this.repos.set(repo, r);
  }

  /** Every manifest request of `repo` is answered `raw` (it need not exist otherwise). */
  answerWith(repo: string, raw: RawAnswer): void {
    this.repos.set(repo, { access: { public: true, users: [] }, tags: new Map(), raw });
  }

  ref(repo: string, tag: string): string {
    return `${this.host}/${repo}:${tag}`;
  }

  /** The requests about `repo` (its manifests and blobs, and the tokens asked for it). */
  requestsFor(repo: string): RegistryRequest[] {
    return this.requests.filter((r) => r.path.startsWith(`/v2/${repo}/`) || r.scope?.includes(`repository:${repo}:`));
  }

  /** How many times blob `digest` was downloaded (GET; a HEAD downloads nothing). */
  downloads(digest: string): number {
    return this.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/blobs/${digest}`)).length;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private answer(req: IncomingMessage): Answer {
    const url = new URL(req.url ?? '/', 'http://registry');
    if (url.pathname === '/token') return this.token(req, url);
    const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const user = bearer === undefined ? undefined : this.tokens.get(bearer);
    this.requests.push({ method: req.method ?? '', path: url.pathname, user });
    const challenge = (scope?: string, error?: string) => ({
      'www-authenticate': `Bearer realm="http://${this.host}/token",service="${SERVICE}"${scope ? `,scope="${scope}"` : ''}${error ? `,error="${error}"` : ''}`,
    });
    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      return user === undefined ? errors(401, 'UNAUTHORIZED', 'authentication required', challenge()) : { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
    }
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    if (!m) return errors(404, 'NAME_UNKNOWN', 'no such repository');
    const [, name, kind, reference] = m as unknown as [string, string, string, string];
    const scope = `repository:${name}:pull`;
    if (user === undefined) return errors(401, 'UNAUTHORIZED', 'authentication required', challenge(scope));
    const repo = this.repos.get(name);
    if (!repo) return errors(404, 'NAME_UNKNOWN', 'repository name not known to registry');
    if (!repo.access.public && !repo.access.users.includes(user)) return errors(401, 'UNAUTHORIZED', 'authentication required', challenge(scope, 'insufficient_scope'));
    if (repo.raw && kind === 'manifests') return { status: repo.raw.status, headers: { 'content-type': repo.raw.contentType }, body: repo.raw.body };
    return kind === 'manifests' ? manifestOf(repo, reference) : blobOf(repo, reference);
  }

  /** A token for whoever asks: anonymous without credentials, the user's with right ones; 401 for wrong ones. */
  private token(req: IncomingMessage, url: URL): Answer {
    const scope = url.searchParams.get('scope') ?? undefined;
    const basic = /^Basic (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [name = '', ...rest] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const password = rest.join(':');
    // Podman sends Basic with an empty user and password when it has no credentials: anonymous
    if ((name || password) && this.users.get(name) !== password) {
      this.requests.push({ method: req.method ?? '', path: '/token', user: `!${name}`, scope });
      return errors(401, 'UNAUTHORIZED', 'incorrect username or password');
    }
    this.requests.push({ method: req.method ?? '', path: '/token', user: name, scope });
    const token = randomBytes(16).toString('hex');
    this.tokens.set(token, name);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, access_token: token, expires_in: 300, issued_at: new Date().toISOString() }) };
  }
}

function manifestOf(repo: Repo, reference: string): Answer {
  const image = repo.tags.get(reference) ?? [...repo.tags.values()].find((i) => i.manifestDigest === reference);
  if (!image) return errors(404, 'MANIFEST_UNKNOWN', 'manifest unknown');
  return { status: 200, headers: { 'content-type': MANIFEST_TYPE, 'docker-content-digest': image.manifestDigest }, body: image.manifest };
}

function blobOf(repo: Repo, digest: string): Answer {
  const blob = [...repo.tags.values()].map((i) => (i.id === digest ? i.config : i.layer.digest === digest ? i.layer.data : undefined)).find(Boolean);
  if (!blob) return errors(404, 'BLOB_UNKNOWN', 'blob unknown to registry');
  return { status: 200, headers: { 'content-type': 'application/octet-stream', 'docker-content-digest': digest }, body: blob };
}
