// HOTP and TOTP against the RFCs' own test vectors (RFC 4226 Appendix D, RFC 6238 Appendix B),
// base32 against RFC 4648's, and the rules a sign-in needs: a window of one step either side,
// and a code accepted once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totp, totpStep } from './totp.ts';

test('HOTP: RFC 4226 Appendix D', () => {
  const secret = Buffer.from('12345678901234567890');
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  assert.deepEqual(expected.map((_, i) => hotp(secret, i)), expected);
});

test('TOTP: RFC 6238 Appendix B, SHA-1, SHA-256 and SHA-512, 8 digits', () => {
  // the RFC's seeds: the ASCII of "1234567890" repeated to the hash's length
  const seed = (n: number) => Buffer.from('1234567890'.repeat(7).slice(0, n));
  const rows: [number, string, string, string][] = [
    [59, '94287082', '46119246', '90693936'],
    [1111111109, '07081804', '68084774', '25091201'],
    [1111111111, '14050471', '67062674', '99943326'],
    [1234567890, '89005924', '91819424', '93441116'],
    [2000000000, '69279037', '90698825', '38618901'],
    [20000000000, '65353130', '77737706', '47863826'],
  ];
  for (const [t, sha1, sha256, sha512] of rows) {
    assert.equal(totp(seed(20), t * 1000, { digits: 8, algorithm: 'sha1' }), sha1, `SHA-1 at ${t}`);
    assert.equal(totp(seed(32), t * 1000, { digits: 8, algorithm: 'sha256' }), sha256, `SHA-256 at ${t}`);
    assert.equal(totp(seed(64), t * 1000, { digits: 8, algorithm: 'sha512' }), sha512, `SHA-512 at ${t}`);
  }
});

test('base32: RFC 4648 section 10 vectors, both ways', () => {
  const vectors: [string, string][] = [['', ''], ['f', 'MY'], ['fo', 'MZXQ'], ['foo', 'MZXW6'], ['foob', 'MZXW6YQ'], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI']];
  for (const [plain, encoded] of vectors) {
    assert.equal(base32Encode(Buffer.from(plain)), encoded);
    assert.equal(base32Decode(encoded)!.toString(), plain);
  }
  assert.equal(base32Decode('mzxw 6ytb oi==')!.toString(), 'foobar', 'any case, spaces and padding');
  assert.equal(base32Decode('MZXW1'), undefined, '1 is not base32');
});

test('a code matches within one step either side of now, and only after the step last accepted', () => {
  const secret = Buffer.from('12345678901234567890');
  const now = 1_700_000_000_000;
  const step = totpStep(now);
  assert.equal(matchTotp(secret, totp(secret, now), now), step);
  assert.equal(matchTotp(secret, totp(secret, now - 30_000), now), step - 1, 'the previous step (a slow typist, a clock behind)');
  assert.equal(matchTotp(secret, totp(secret, now + 30_000), now), step + 1);
  assert.equal(matchTotp(secret, totp(secret, now - 60_000), now), undefined, 'two steps away');
  assert.equal(matchTotp(secret, totp(secret, now), now, { afterStep: step }), undefined, 'a code is accepted once');
  assert.equal(matchTotp(secret, '12345', now), undefined);
  assert.equal(matchTotp(secret, 'abcdef', now), undefined);
});

test('the otpauth URI names the issuer, the account and the secret in base32', () => {
  const uri = otpauthUri(Buffer.from('12345678901234567890'), 'Gantry', 'ada@example.com');
  assert.equal(uri, 'otpauth://totp/Gantry:ada%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Gantry&algorithm=SHA1&digits=6&period=30');
});
