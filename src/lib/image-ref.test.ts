// Image references normalised as Docker does, and refused when an engine could read them as
// an image id (or a prefix of one) instead of a registry's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseImageRef } from './image-ref.ts';

const HEX = 'a3f1c2'.repeat(11).slice(0, 64);

test('short names are Docker Hub\'s, fully qualified; a registry is the first component with . or :, localhost, or capitals', () => {
  const cases: [string, string, string][] = [
    ['busybox', 'docker.io', 'docker.io/library/busybox:latest'],
    ['busybox:1.36', 'docker.io', 'docker.io/library/busybox:1.36'],
    ['library/busybox', 'docker.io', 'docker.io/library/busybox:latest'],
    ['index.docker.io/busybox', 'docker.io', 'docker.io/library/busybox:latest'],
    ['myorg/app:v2', 'docker.io', 'docker.io/myorg/app:v2'],
    ['ghcr.io/org/app/sub:1.0-rc_1', 'ghcr.io', 'ghcr.io/org/app/sub:1.0-rc_1'],
    ['127.0.0.1:5000/team/secret:v1', '127.0.0.1:5000', '127.0.0.1:5000/team/secret:v1'],
    ['localhost/gantry-test/busybox', 'localhost', 'localhost/gantry-test/busybox:latest'],
    ['Registry/app', 'Registry', 'Registry/app:latest'],
    ['[::1]:5000/app', '[::1]:5000', '[::1]:5000/app:latest'],
    [`nvcr.io/nvidia/pytorch@sha256:${HEX}`, 'nvcr.io', `nvcr.io/nvidia/pytorch@sha256:${HEX}`],
    // a digest names the image; the tag beside it is not what is pulled
    [`busybox:1.36@sha256:${HEX}`, 'docker.io', `docker.io/library/busybox@sha256:${HEX}`],
  ];
  for (const [ref, domain, canonical] of cases) {
    const r = parseImageRef(ref);
    assert.ok(r, ref);
    assert.equal(r.domain, domain, ref);
    assert.equal(r.canonical, canonical, ref);
  }
  assert.equal(parseImageRef('[::1]:5000/app')?.host, '::1');
  assert.equal(parseImageRef('Registry.Example.com:443/app')?.host, 'registry.example.com');
  assert.equal(parseImageRef(`a/b@sha256:${HEX}`)?.tag, undefined);
});

test('an image id, a prefix of one, and what is no reference are refused', () => {
  const refused = [
    HEX, `sha256:${HEX}`, // an id: Docker and Podman run the image it names
    '', 'UPPER', 'team/UPPER', 'a//b', '/abs', 'a/', 'app:', 'app:-tag', `app:${'t'.repeat(129)}`, 'app@sha256:short', 'app@md5:abc',
    'reg.io/a b', 'reg.io/a?b', `reg.io/${'a'.repeat(260)}`, 'reg.io:port/app', '-reg.io/app', 'reg..io/app', 'a:b:c',
  ];
  for (const r of refused) assert.equal(parseImageRef(r), undefined, r);
  // a short run of hex is a valid Hub name: normalised, it is never read as an id prefix
  assert.equal(parseImageRef('4a8')?.canonical, 'docker.io/library/4a8:latest');
});
