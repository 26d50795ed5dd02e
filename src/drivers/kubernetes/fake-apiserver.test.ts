// The fake API server refuses what a real one refuses of a create's metadata (issue 45: a
// claim named by a network storage's id, `nst_…`, was sent to clusters and no test saw it):
// through the real @kubernetes/client-node, a name that is no DNS-1123 subdomain (a
// Service's: no DNS-1035 label) is 422 Invalid, an object of another namespace 400
// BadRequest, each in the API server's Status shape; valid names are stored.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { FakeApiServer } from './fake-apiserver.ts';
import { objectName, storageClaimName } from './manifests.ts';

const NS = 'gantry';
const api = new FakeApiServer();
let core: k8s.CoreV1Api;
before(async () => {
  await api.start();
  core = api.coreApi();
});
after(() => api.close());

/** The refusal of a create as the client reports it: its code and the Status body. */
async function refusal(p: Promise<unknown>): Promise<{ code: number; body: any }> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  assert.ok(e instanceof k8s.ApiException, `refused, not ${String(e)}`);
  return { code: e.code, body: typeof e.body === 'string' ? JSON.parse(e.body) : e.body };
}

test('a name that is not a DNS-1123 subdomain is 422 Invalid in the API server\'s Status shape', async () => {
  const claim = { metadata: { name: 'nst_01m8vggcapgzv1ysa2ypyh' }, spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '1Gi' } } } };
  const r = await refusal(core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: claim }));
  assert.equal(r.code, 422);
  assert.deepEqual(Object.keys(r.body).sort(), ['apiVersion', 'code', 'details', 'kind', 'message', 'metadata', 'reason', 'status']);
  assert.deepEqual([r.body.kind, r.body.status, r.body.reason, r.body.code], ['Status', 'Failure', 'Invalid', 422]);
  assert.match(r.body.message, /^PersistentVolumeClaim "nst_01m8vggcapgzv1ysa2ypyh" is invalid: metadata\.name: Invalid value: "nst_01m8vggcapgzv1ysa2ypyh": a lowercase RFC 1123 subdomain must consist of/);
  assert.deepEqual([r.body.details.name, r.body.details.kind, r.body.details.causes[0].reason, r.body.details.causes[0].field], ['nst_01m8vggcapgzv1ysa2ypyh', 'PersistentVolumeClaim', 'FieldValueInvalid', 'metadata.name']);
  for (const name of ['Upper', '-lead', 'trail-', 'a'.repeat(254), '']) {
    assert.equal((await refusal(core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name } } }))).code, 422, JSON.stringify(name.slice(0, 20)));
  }
  assert.equal(api.objects.size, 0, 'nothing refused was stored');
});

test('a Service\'s name must be a DNS-1035 label; an object of another namespace is 400; valid names are stored', async () => {
  const service = (name: string) => ({ metadata: { name }, spec: { ports: [{ port: 80 }] } });
  const digit = await refusal(core.createNamespacedService({ namespace: NS, body: service('9lives') }));
  assert.equal(digit.code, 422);
  assert.match(digit.body.message, /a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character/);
  assert.equal((await refusal(core.createNamespacedService({ namespace: NS, body: service('a.b') }))).code, 422, 'a dot is a subdomain, not a label');
  const other = await refusal(core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'ok', namespace: 'elsewhere' } } }));
  assert.deepEqual([other.code, other.body.reason], [400, 'BadRequest']);
  await core.createNamespacedService({ namespace: NS, body: service(objectName('ins_01m8vggcapgzv1ysa2ypyh')) });
  await core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: { metadata: { name: storageClaimName('nst_01m8vggcapgzv1ysa2ypyh') }, spec: {} } });
  await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'a.b-c' } } });
  assert.deepEqual([...api.objects.keys()].sort(), ['configmaps/a.b-c', 'persistentvolumeclaims/gns-nst-01m8vggcapgzv1ysa2ypyh', 'services/gi-ins-01m8vggcapgzv1ysa2ypyh']);
});
