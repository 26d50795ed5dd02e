// Test support: a tiny stand-in for the Kubernetes API server on 127.0.0.1, so the driver's
// calls go through the real @kubernetes/client-node (URLs, query strings, body serialization,
// status codes → ApiException) without a cluster. It keeps namespaced core/v1 objects in
// memory: POST creates (409 AlreadyExists when the name is taken), GET reads, DELETE removes
// at once (404 NotFound when missing), GET of a collection lists (an equality labelSelector filters).
// A create is judged as the API server's metadata validation judges it (invalid()): a name
// that is not a DNS-1123 subdomain (a Service's: not a DNS-1035 label) is 422 Invalid, and an
// object of another namespace than the request's 400 BadRequest, in the API server's Status
// shape, so a driver that names an object wrongly fails a test. It does not schedule, run, or grace-period anything:
// a test plays the kubelet by setting a pod's `status` (and `deletionTimestamp`) itself, and
// the container runtime by setting what a pod's log holds (GET .../pods/<name>/log answers it
// as text, as the API server does, honouring only tailLines).
// A pod's `exec` subresource speaks the real protocol (the WebSocket upgrade, subprotocol
// v5.channel.k8s.io or v4, the channel bytes, the Status on channel 3: exec.ts) and runs the
// command as a local child process standing in for the container (argv as given, no shell
// added); it refuses a pod that does not exist (404) or does not run, or a container it does not
// have (400), before the upgrade, as the API server does. With tty=true the child still has
// pipes, not a terminal (its stderr goes out on stdout, as a TTY's would): resize frames are
// recorded (`execs[].resizes`), not applied. A pod's `portforward` (v4.channel.k8s.io, one port)
// dials 127.0.0.1 at `portTargets`' port for it (the port itself when unset), the port prefixed
// on each channel's first frame, a failed dial worded on the error channel as the kubelet does.
import { type ChildProcess, spawn } from 'node:child_process';
import { connect as dialTcp } from 'node:net';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';

export interface ApiRequest {
  method: string;
  /** path and query, e.g. `/api/v1/namespaces/gantry/pods/wk-1?gracePeriodSeconds=0` */
  url: string;
  body?: unknown;
}

type Obj = { metadata: { name: string; namespace?: string; deletionTimestamp?: string; labels?: Record<string, string> }; status?: unknown } & Record<string, unknown>;

/** One exec the fake ran: what was asked, what the client sent on the side channels. */
export interface FakeExec {
  pod: string;
  container: string;
  command: string[];
  tty: boolean;
  protocol: string;
  /** the resize frames (channel 4) as they came */
  resizes: { Width: number; Height: number }[];
  /** the client closed stdin (v5: channel 255, stream 0) */
  stdinClosed: boolean;
  /** the stand-in process ended (its exit code, or 128 + the signal) */
  exitCode?: number;
  /** resolves once the process has ended and the connection closed */
  done: Promise<void>;
}

const EXEC_PATH = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/?]+)\/(exec|portforward)\?(.*)$/;
const LOG_PATH = /^\/api\/v1\/namespaces\/[^/]+\/pods\/([^/?]+)\/log(?:\?.*)?$/;
const PATH = /^\/api\/v1\/namespaces\/([^/]+)\/([a-z]+)(?:\/([^/?]+))?(?:\?.*)?$/;

export class FakeApiServer {
  readonly requests: ApiRequest[] = [];
  /** `<plural>/<name>` → object, one namespace is enough for the driver */
  readonly objects = new Map<string, Obj>();
  /** answer the next request whose method and path match with this status code */
  failNext: { method: string; pathIncludes: string; code: number } | undefined;
  /** pod name → its log as the API server answers it with timestamps=true */
  readonly podLogs = new Map<string, string>();
  /** every exec upgraded, in order */
  readonly execs: FakeExec[] = [];
  /** the subprotocols the exec endpoint accepts, best first (a v4-only server: `['v4.channel.k8s.io']`) */
  execProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
  private server: Server | undefined;
  /** pod port → the local TCP port a `portforward` to it dials (127.0.0.1); a port not here is dialled as itself */
  readonly portTargets = new Map<number, number>();
  /** every portforward upgraded: the port asked and the subprotocol */
  readonly forwards: { pod: string; port: number; protocol: string }[] = [];
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (offered, req) => (req.url?.includes('/portforward?') ? ['v4.channel.k8s.io'] : this.execProtocols).find((p) => offered.has(p)) ?? false,
  });
  private readonly children = new Set<ChildProcess>();
  private port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        const body = raw ? JSON.parse(raw) : undefined;
        const url = req.url ?? '';
        this.requests.push({ method: req.method ?? '', url, ...(body === undefined ? {} : { body }) });
        const log = LOG_PATH.exec(url);
        if (log && req.method === 'GET' && this.pod(log[1]!) && this.failNext === undefined) {
          const lines = (this.podLogs.get(log[1]!) ?? '').split('\n').filter(Boolean);
          const tail = Number(new URL(url, 'http://x').searchParams.get('tailLines') ?? lines.length);
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(lines.slice(-tail || lines.length).map((l) => `${l}\n`).join(''));
          return;
        }
        const [code, out] = this.answer(req.method ?? '', url, body);
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out));
      });
    });
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const c of this.children) c.kill('SIGKILL');
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** A kubeconfig of the real client, pointed at this server (plain HTTP, a dummy token). */
  kubeConfig(): k8s.KubeConfig {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: `http://127.0.0.1:${this.port}`, skipTLSVerify: true }],
      users: [{ name: 'gantry', token: 'test-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'gantry' }],
      currentContext: 'fake',
    });
    return kc;
  }

  /** A CoreV1Api of the real client, pointed at this server. */
  coreApi(): k8s.CoreV1Api {
    return this.kubeConfig().makeApiClient(k8s.CoreV1Api);
  }

  /** Play the scheduler and the kubelet: the pod is Running on a node, its container `main` started. */
  setPodRunning(name: string): void {
    const pod = this.pod(name);
    if (!pod) throw new Error(`no pod ${name}`);
    const p = pod as unknown as { spec?: { nodeName?: string } };
    p.spec = { ...p.spec, nodeName: 'node-1' };
    pod.status = { phase: 'Running', containerStatuses: [{ name: 'main', ready: true, state: { running: { startedAt: new Date().toISOString() } } }] };
  }

  /** GET …/pods/{name}/exec: refused as the API server refuses it, else upgraded and run. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = req.url ?? '';
    this.requests.push({ method: req.method ?? '', url });
    const refuse = (code: number, reason: string, message: string) => {
      const body = JSON.stringify(status(code, reason, message));
      socket.end(`HTTP/1.1 ${code} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
    };
    const m = EXEC_PATH.exec(url);
    if (!m || req.method !== 'GET') return void refuse(404, 'NotFound', `no route ${url}`);
    const name = m[1]!;
    const q = new URLSearchParams(m[3]);
    const pod = this.pod(name) as (Obj & { spec?: { nodeName?: string; containers?: { name: string }[] }; status?: { phase?: string } }) | undefined;
    if (!pod) return void refuse(404, 'NotFound', `pods "${name}" not found`);
    if (m[2] === 'portforward') {
      if (!pod.spec?.nodeName) return void refuse(400, 'BadRequest', `pod ${name} does not have a host assigned`);
      if (pod.status?.phase !== 'Running') return void refuse(400, 'BadRequest', `unable to upgrade connection: pod ${name} is not running`);
      const port = Number(q.get('ports'));
      if (!Number.isInteger(port) || port < 1 || port > 65535) return void refuse(400, 'BadRequest', `invalid port ${q.get('ports')}`);
      return void this.wss.handleUpgrade(req, socket, head, (ws) => this.forward(ws, name, port));
    }
    const container = q.get('container') ?? pod.spec?.containers?.[0]?.name ?? '';
    if (!pod.spec?.containers?.some((c) => c.name === container)) return void refuse(400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
    if (!pod.spec.nodeName) return void refuse(400, 'BadRequest', `pod ${name} does not have a host assigned`);
    if (pod.status?.phase !== 'Running') return void refuse(400, 'BadRequest', `unable to upgrade connection: container not found ("${container}")`);
    const command = q.getAll('command');
    const tty = q.get('tty') === 'true';
    if (!command.length) return void refuse(400, 'BadRequest', 'you must specify at least 1 command');
    if (tty && q.get('stderr') === 'true') return void refuse(400, 'BadRequest', 'tty and stderr cannot both be true');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.run(ws, { pod: name, container, command, tty }));
  }

  /**
   * A port-forward (v4.channel.k8s.io, one port): the port prefixed (2 bytes LE) on each
   * channel's first frame, the bytes on channel 0, a dial failure as the kubelet words it on
   * channel 1, then the close.
   */
  private forward(ws: WebSocket, pod: string, port: number): void {
    this.forwards.push({ pod, port, protocol: ws.protocol });
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(port);
    ws.send(Buffer.concat([Buffer.of(0), prefix]));
    ws.send(Buffer.concat([Buffer.of(1), prefix]));
    const tcp = dialTcp(this.portTargets.get(port) ?? port, '127.0.0.1');
    tcp.on('data', (d: Buffer) => ws.readyState === ws.OPEN && ws.send(Buffer.concat([Buffer.of(0), d])));
    tcp.on('error', (err) => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.of(1), Buffer.from(`error forwarding port ${port} to pod ${pod}, uid : failed to connect to localhost:${port} inside namespace: ${err.message}`)]));
      ws.close(1000);
    });
    tcp.on('close', () => ws.close(1000));
    ws.on('message', (raw: RawData) => {
      const frame = raw as Buffer;
      if (frame[0] === 0 && frame.length > 1) tcp.write(frame.subarray(1));
    });
    ws.on('close', () => tcp.destroy());
  }

  /** The stand-in for the container's process: the channels both ways, the Status on 3, then the close. */
  private run(ws: WebSocket, ask: Pick<FakeExec, 'pod' | 'container' | 'command' | 'tty'>): void {
    let exited!: () => void;
    const wsClosed = new Promise<void>((r) => ws.once('close', () => r()));
    const e: FakeExec = { ...ask, protocol: ws.protocol, resizes: [], stdinClosed: false, done: Promise.all([wsClosed, new Promise<void>((r) => (exited = r))]).then(() => {}) };
    this.execs.push(e);
    const send = (channel: number, data: Buffer | string) => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.of(channel), Buffer.from(data)]));
    };
    const child = spawn(ask.command[0]!, ask.command.slice(1), { stdio: 'pipe' });
    this.children.add(child);
    child.stdin.on('error', () => {});
    child.stdout.on('data', (d: Buffer) => send(1, d));
    child.stderr.on('data', (d: Buffer) => send(ask.tty ? 1 : 2, d));
    ws.on('message', (raw: RawData) => {
      const frame = raw as Buffer;
      const payload = frame.subarray(1);
      if (frame[0] === 0) child.stdin.write(payload);
      else if (frame[0] === 4) e.resizes.push(JSON.parse(payload.toString()));
      else if (frame[0] === 255 && payload[0] === 0 && ws.protocol === 'v5.channel.k8s.io') {
        e.stdinClosed = true;
        child.stdin.end();
      }
    });
    ws.on('close', () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let spawnError: Error | undefined;
    child.on('error', (err) => (spawnError = err));
    child.on('close', (code, signal) => {
      this.children.delete(child);
      if (spawnError) {
        // what containerd says of an executable it cannot find, through the kubelet
        send(3, JSON.stringify({ metadata: {}, status: 'Failure', message: `OCI runtime exec failed: exec failed: unable to start container process: exec: ${JSON.stringify(ask.command[0])}: executable file not found in $PATH: unknown` }));
      } else {
        const rc = code ?? 128 + (signal ? (({ SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }) as Record<string, number>)[signal] ?? 0 : 0);
        e.exitCode = rc;
        // k8s.io/apimachinery's remotecommand: the kubelet's Status for the exit
        send(3, JSON.stringify(rc === 0 ? { metadata: {}, status: 'Success' } : {
          metadata: {}, status: 'Failure', message: `command terminated with non-zero exit code: error executing command [${ask.command.join(' ')}], exit code ${rc}`,
          reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(rc) }] },
        }));
      }
      ws.close(1000);
      exited();
    });
  }

  pod(name: string): Obj | undefined {
    return this.objects.get(`pods/${name}`);
  }

  /** Play the kubelet: replace a pod's status (a fixture), optionally mark it terminating. */
  setPodStatus(name: string, status: unknown, deletionTimestamp?: string): void {
    const pod = this.pod(name);
    if (!pod) throw new Error(`no pod ${name}`);
    pod.status = status;
    if (deletionTimestamp) pod.metadata.deletionTimestamp = deletionTimestamp;
  }

  /** The requests since the last call, as `METHOD path` lines (query kept). */
  takeCalls(): string[] {
    return this.requests.splice(0).map((r) => `${r.method} ${r.url}`);
  }

  private answer(method: string, url: string, body: unknown): [number, unknown] {
    const f = this.failNext;
    if (f && f.method === method && url.includes(f.pathIncludes)) {
      this.failNext = undefined;
      return [f.code, status(f.code, 'InternalError', 'injected failure')];
    }
    const m = PATH.exec(url);
    if (!m) return [404, status(404, 'NotFound', `no route ${url}`)];
    const [, namespace, plural, name] = m as unknown as [string, string, string, string | undefined];
    if (method === 'POST' && !name) {
      const obj = structuredClone(body) as Obj;
      const refused = invalid(plural, namespace, obj);
      if (refused) return refused;
      const key = `${plural}/${obj.metadata.name}`;
      if (this.objects.has(key)) return [409, status(409, 'AlreadyExists', `${plural} "${obj.metadata.name}" already exists`)];
      obj.metadata.namespace = namespace;
      // what the API server answers for a new pod before the scheduler has looked at it
      if (plural === 'pods') obj.status = { phase: 'Pending', qosClass: 'Guaranteed' };
      this.objects.set(key, obj);
      return [201, obj];
    }
    if (method === 'GET' && !name) {
      // a list, filtered by an equality labelSelector (`a=b,c=d`), as the driver's list() sends it
      const selector = new URL(url, 'http://x').searchParams.get('labelSelector') ?? '';
      const wanted = selector.split(',').filter(Boolean).map((s) => s.split('=') as [string, string]);
      const items = [...this.objects.entries()]
        .filter(([k, o]) => k.startsWith(`${plural}/`) && wanted.every(([l, v]) => o.metadata.labels?.[l] === v))
        .map(([, o]) => o);
      return [200, { kind: 'List', apiVersion: 'v1', metadata: {}, items }];
    }
    const key = `${plural}/${name}`;
    const obj = this.objects.get(key);
    if (!obj) return [404, status(404, 'NotFound', `${plural} "${name}" not found`)];
    if (method === 'GET') return [200, obj];
    if (method === 'DELETE') {
      this.objects.delete(key);
      return [200, obj];
    }
    return [405, status(405, 'MethodNotAllowed', method)];
  }
}

function status(code: number, reason: string, message: string, details?: unknown) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

const KINDS: Record<string, string> = {
  pods: 'Pod', configmaps: 'ConfigMap', secrets: 'Secret', services: 'Service', persistentvolumeclaims: 'PersistentVolumeClaim',
};
// k8s.io/apimachinery/pkg/util/validation: the rules and the words the API server says them in
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_RULE = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_1035_RULE = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/** What the API server's ValidateObjectMeta refuses of a create: the object's name for its kind, a namespace other than the request's. */
function invalid(plural: string, namespace: string, obj: Obj): [number, unknown] | undefined {
  const kind = KINDS[plural] ?? plural;
  const meta = obj?.metadata ?? ({} as Obj['metadata']);
  if (meta.namespace !== undefined && meta.namespace !== namespace) {
    return [400, status(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request')];
  }
  const name = String(meta.name ?? '');
  const service = plural === 'services';
  const problems: string[] = [];
  if (!name) problems.push('Required value: name or generateName is required');
  else {
    if (service ? !DNS1035_LABEL.test(name) : !DNS1123_SUBDOMAIN.test(name)) problems.push(`Invalid value: ${JSON.stringify(name)}: ${service ? LABEL_1035_RULE : SUBDOMAIN_RULE}`);
    if (name.length > (service ? 63 : 253)) problems.push(`Invalid value: ${JSON.stringify(name)}: must be no more than ${service ? 63 : 253} characters`);
  }
  if (!problems.length) return undefined;
  const causes = problems.map((message) => ({ reason: message.startsWith('Required') ? 'FieldValueRequired' : 'FieldValueInvalid', message, field: 'metadata.name' }));
  return [422, status(422, 'Invalid', `${kind} ${JSON.stringify(name)} is invalid: ${problems.map((p) => `metadata.name: ${p}`).join(', ')}`, { name, kind, causes })];
}
