// Addresses an outgoing request from Gantry must not reach unless the operator allows it
// (webhooks: GANTRY_WEBHOOK_ALLOW_PRIVATE): loopback, private, link-local (cloud metadata at
// 169.254.169.254), unique-local, CGNAT, multicast, reserved and documentation ranges, for
// IPv4 and IPv6, including IPv4 carried inside IPv6 (mapped, compatible, NAT64, 6to4).
import { BlockList, isIP } from 'node:net';

const V4 = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const;
const V6 = [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001:db8::', 32], ['2001::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const;

const blocked = new BlockList();
for (const [net, prefix] of V4) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6) blocked.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv6 one (::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::/96, 2002::/16), if any. */
function embeddedV4(v6: string): string | undefined {
  const words = expandV6(v6);
  if (!words) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (n: number) => words.slice(0, n).every((w) => w === 0);
  if (zeros(5) && words[5] === 0xffff) return v4(words[6]!, words[7]!); // mapped
  if (zeros(6)) return v4(words[6]!, words[7]!); // compatible (deprecated)
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return v4(words[6]!, words[7]!); // NAT64
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!); // 6to4
  return undefined;
}

/** Eight 16-bit words of an IPv6 address (a trailing dotted IPv4 part included). */
function expandV6(addr: string): number[] | undefined {
  let s = addr.split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    s = `${s.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const parse = (p: string) => (p ? p.split(':').map((h) => Number.parseInt(h, 16)) : []);
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  const words = tail === undefined ? h : [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff) ? words : undefined;
}

/** Whether `address` (an IP literal) is one Gantry keeps away from; anything not an IP counts as private. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedV4(bare);
  if (v4 !== undefined) return blocked.check(v4, 'ipv4');
  return blocked.check(bare.split('%')[0]!, 'ipv6');
}
