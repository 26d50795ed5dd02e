// The operator's image rules on a docker engine: which registries on private addresses are
// allowed (none by default; a name is refused by what it resolves to), which images are the
// operator's own local ones, and their settings, refused with the variable's name when wrong.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../config.ts';
import { parseImageRef } from '../../lib/image-ref.ts';
import { isLocalImage, parseLocalImages, parsePrivateRegistries, registryRefusal } from './image-rules.ts';
import type { DockerSettings } from './settings.ts';

const DNS: Record<string, string[]> = {
  'registry.internal': ['10.0.0.5'],
  'ghcr.io': ['140.82.112.34'],
  'sneaky.example.com': ['140.82.112.34', '169.254.169.254'], // one address private is enough
  'mapped.example.com': ['::ffff:127.0.0.1'],
};
const lookup = async (host: string) => {
  const a = DNS[host];
  if (!a) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
  return a;
};
const refusal = (image: string, allowed: string[] = []) => registryRefusal(parseImageRef(image)!, allowed, lookup);

test('a registry on a loopback, private or link-local address, or named localhost, is refused; public ones and names that do not resolve are left to the engine', async () => {
  const refused = [
    '127.0.0.1:5000/a/b:1', 'localhost:5000/a:1', 'api.localhost/a:1', '10.1.2.3/a:1', '169.254.169.254/latest:1', '[::1]:5000/a:1',
    '[fd00::5]/a:1', '192.168.1.10:443/a:1', 'registry.internal/team/app:1', 'sneaky.example.com/a:1', 'mapped.example.com/a:1',
  ];
  for (const image of refused) {
    const why = await refusal(image);
    assert.match(why ?? '', /is on a loopback, private or link-local address, which images are not pulled from \(the operator allows such registries with GANTRY_DOCKER_PRIVATE_REGISTRIES\)$/, image);
    assert.ok(why?.includes(parseImageRef(image)!.canonical), image);
    // the tenant is not told what a name resolves to
    for (const address of DNS[parseImageRef(image)!.host] ?? []) assert.ok(!why?.includes(address), `${image}: ${why}`);
  }
  for (const image of ['ghcr.io/acme/app:1', '140.82.112.34/a:1', 'busybox', 'unknown.example.org/a:1']) assert.equal(await refusal(image), undefined, image);
});

test('the operator allows a private registry by host (any port), by host and port, or all with *', async () => {
  assert.equal(await refusal('127.0.0.1:5000/a:1', ['127.0.0.1']), undefined);
  assert.equal(await refusal('127.0.0.1:5000/a:1', ['127.0.0.1:5000']), undefined);
  assert.ok(await refusal('127.0.0.1:5001/a:1', ['127.0.0.1:5000']), 'another port of the host is not allowed');
  assert.ok(await refusal('10.0.0.6/a:1', ['10.0.0.5']));
  assert.equal(await refusal('registry.internal/a:1', ['registry.internal']), undefined);
  assert.equal(await refusal('[::1]:5000/a:1', ['::1']), undefined, 'an IPv6 host allowed without its port');
  assert.equal(await refusal('169.254.169.254/a:1', ['*']), undefined);
  assert.deepEqual(parsePrivateRegistries(' 127.0.0.1 , Registry.Internal:5000,[fd00::5],[::1]:5000,*'), ['127.0.0.1', 'registry.internal:5000', 'fd00::5', '[::1]:5000', '*']);
  for (const bad of ['http://10.0.0.5', '10.0.0.5/path', 'registry', 'a b', '10.0.0.5:port']) assert.equal(parsePrivateRegistries(bad), undefined, bad);
});

test('local images: references normalised as a tenant\'s are, and name prefixes written with their registry', () => {
  const patterns = parseLocalImages('localhost/*, busybox:1.36, registry.example.com/ops/*')!;
  assert.deepEqual(patterns, ['localhost/', 'docker.io/library/busybox:1.36', 'registry.example.com/ops/']);
  const local = (image: string) => isLocalImage(parseImageRef(image)!, patterns);
  assert.ok(local('localhost/gantry-test/busybox'));
  assert.ok(local('docker.io/library/busybox:1.36'));
  assert.ok(local('busybox:1.36'));
  assert.ok(local('registry.example.com/ops/tools/cuda:12'));
  assert.ok(!local('busybox:1.37'));
  assert.ok(!local('localhost:5000/a:1'), 'a registry on localhost:5000 is not the local name space');
  assert.ok(!local('registry.example.com/opsx/a:1'));
  assert.deepEqual(parseLocalImages('none'), []);
  for (const bad of ['ubuntu/*', '*', 'sha256:' + 'a'.repeat(64), 'UPPER', ',']) assert.equal(parseLocalImages(bad), undefined, bad);
});

test('settings: GANTRY_DOCKER_LOCAL_IMAGES (default localhost/*) and GANTRY_DOCKER_PRIVATE_REGISTRIES (default none)', () => {
  const base = { GANTRY_COMPUTE_DRIVER: 'docker' };
  const settings = (env: Record<string, string>) => loadConfig({ ...base, ...env }, '/tmp').computeDriver.settings as DockerSettings;
  assert.deepEqual(settings({}).localImages, ['localhost/']);
  assert.deepEqual(settings({}).privateRegistries, []);
  assert.deepEqual(settings({ GANTRY_DOCKER_LOCAL_IMAGES: 'none', GANTRY_DOCKER_PRIVATE_REGISTRIES: '10.0.0.5:5000' }), {
    ...settings({}), localImages: [], privateRegistries: ['10.0.0.5:5000'],
  });
  assert.throws(() => loadConfig({ ...base, GANTRY_DOCKER_LOCAL_IMAGES: 'ubuntu/*', GANTRY_DOCKER_PRIVATE_REGISTRIES: 'http://10.0.0.5' }, '/tmp'), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /GANTRY_DOCKER_LOCAL_IMAGES must be "none" or a comma list of image references .* got "ubuntu\/\*"/);
    assert.match(err.message, /GANTRY_DOCKER_PRIVATE_REGISTRIES must be "\*" or a comma list of registry hosts.* got "http:\/\/10.0.0.5"/);
    return true;
  });
});
