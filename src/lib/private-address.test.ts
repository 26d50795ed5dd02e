// The addresses webhooks keep away from (unless the operator allows them), v4 and v6 and
// IPv4 carried inside IPv6; public addresses pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPrivateAddress } from './private-address.ts';

test('loopback, private, link-local, CGNAT, unique-local, reserved and embedded v4 are private; public addresses are not', () => {
  const priv = [
    '127.0.0.1', '127.255.255.254', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.2.1',
    '::', '::1', '[::1]', 'fe80::1', 'fe80::1%eth0', 'fd00:ec2::254', 'fc00::1', 'ff02::1', '2001:db8::1',
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::127.0.0.1', '64:ff9b::a00:1', '2002:a00:1::', '2002:7f00:1::1',
    'not-an-ip',
  ];
  const pub = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808'];
  for (const a of priv) assert.equal(isPrivateAddress(a), true, a);
  for (const a of pub) assert.equal(isPrivateAddress(a), false, a);
});
