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
import { createServer, type Server } from 'node:http';
import * as k8s from '@kubernetes/client-node';

export interface ApiRequest {
  method: string;
  /** path and query, e.g. `/api/v1/namespaces/gantry/pods/wk-1?gracePeriodSeconds=0` */
  url: string;
  body?: unknown;
}

type Obj = { metadata: { name: string; namespace?: string; deletionTimestamp?: string; labels?: Record<string, string> }; status?: unknown } & Record<string, unknown>;

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
  private server: Server | undefined;
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
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** A CoreV1Api of the real client, pointed at this server (plain HTTP, a dummy token). */
  coreApi(): k8s.CoreV1Api {
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: `http://127.0.0.1:${this.port}`, skipTLSVerify: true }],
      users: [{ name: 'gantry', token: 'test-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'gantry' }],
      currentContext: 'fake',
    });
    return kc.makeApiClient(k8s.CoreV1Api);
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
