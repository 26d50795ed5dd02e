// A failed pull is told in Gantry's words, chosen by what the engine said (its real errors,
// fixtures/pull-errors.json, for both engines) and never containing them: those words carry
// what the registry, or a server that is no registry, answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pullFailureKind, pullFailureMessage } from './pull-failure.ts';

const fixtures = JSON.parse(readFileSync(new URL('./fixtures/pull-errors.json', import.meta.url), 'utf8')) as {
  errors: { engine: string; case: string; image: string; words: string; kind: string }[];
};

test('each engine\'s real pull errors are read as the kind of failure they are', () => {
  assert.ok(fixtures.errors.length >= 18);
  for (const f of fixtures.errors) assert.equal(pullFailureKind(f.words), f.kind, `${f.engine}, ${f.case}: ${f.words}`);
});

test('the message names the image and what happened, never the engine\'s or registry\'s words', () => {
  for (const f of fixtures.errors) {
    for (const withCredential of [false, true]) {
      const m = pullFailureMessage(f.image, f.words, withCredential);
      assert.ok(m.includes(f.image), m);
      assert.doesNotMatch(m, /SECRET|admin|<html|denied|unauthorized|StatusCode|dial tcp|lookup|Internal Server Error/i, `${f.engine}, ${f.case}: ${m}`);
    }
  }
  const img = 'ghcr.io/acme/app:1';
  assert.equal(pullFailureMessage(img, 'unauthorized: authentication required', false),
    'the registry refused ghcr.io/acme/app:1 without a credential: a private image needs the team\'s registry credential (imageAuthId, or an endpoint\'s authId)');
  assert.equal(pullFailureMessage(img, 'unauthorized: incorrect username or password', true), 'the registry refused the team\'s registry credential for ghcr.io/acme/app:1');
  assert.equal(pullFailureMessage(img, 'manifest unknown', false), 'the registry has no image ghcr.io/acme/app:1');
  assert.equal(pullFailureMessage(img, 'dial tcp: i/o timeout', false), 'the registry of ghcr.io/acme/app:1 could not be reached');
  assert.equal(pullFailureMessage(img, '<html>hello</html>', false), 'the pull of ghcr.io/acme/app:1 failed (what the registry answered is not shown)');
});
