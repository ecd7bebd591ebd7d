import { isIP } from 'node:net';

/**
 * IPv6 address arithmetic the rate limits and the SSRF policy share: the eight 16-bit groups of an
 * address, the IPv4 address an IPv6 one embeds, and the key a client address is rate-limited under.
 */

/** The eight 16-bit groups of an IPv6 address (a zone `%eth0` is dropped), or undefined if it is not one. */
export function ipv6Groups(address: string): number[] | undefined {
  let text = address.split('%')[0]!;
  if (isIP(text) !== 6) return undefined;
  const tail: number[] = [];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, -dotted[0].length);
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const gap = text.indexOf('::');
  if (gap === -1) return [...parse(text), ...tail];
  const head = parse(text.slice(0, gap));
  const rest = [...parse(text.slice(gap + 2)), ...tail];
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

const dottedQuad = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

const zero = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

/** IPv4-mapped `::ffff:0:0/96`: the IPv4 address itself, spelled as IPv6 (dual-stack sockets). */
export function mappedIpv4(groups: number[]): string | undefined {
  return zero(groups, 0, 5) && groups[5] === 0xffff ? dottedQuad(groups[6]!, groups[7]!) : undefined;
}

/**
 * The IPv4 addresses an IPv6 address embeds, by the form a gateway or the stack translates it with:
 * IPv4-mapped `::ffff:0:0/96`, IPv4-translated `::ffff:0:0:0/96` (SIIT), IPv4-compatible `::/96`,
 * NAT64 `64:ff9b::/96` and the local-use `64:ff9b:1::/48` (its /96 form, RFC 8215), 6to4 `2002::/16`
 * (the relay router) and Teredo `2001::/32` (its server and its client, the client's bits inverted).
 * Empty when it embeds none.
 */
export function embeddedIpv4(address: string): string[] {
  const g = ipv6Groups(address);
  if (!g) return [];
  const mapped = mappedIpv4(g);
  if (mapped) return [mapped];
  const last = dottedQuad(g[6]!, g[7]!);
  if (zero(g, 0, 4) && g[4] === 0xffff && g[5] === 0) return [last];
  if (zero(g, 0, 6)) return [last];
  if (g[0] === 0x64 && g[1] === 0xff9b && (zero(g, 2, 6) || g[2] === 1)) return [last];
  if (g[0] === 0x2002) return [dottedQuad(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) {
    return [dottedQuad(g[2]!, g[3]!), dottedQuad(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  }
  return [];
}

/**
 * The part of a client address a per-address rate limit counts: an IPv4 address whole (also when a
 * dual-stack socket spells it `::ffff:a.b.c.d`), an IPv6 address by its /64, the smallest block one
 * subscriber is given, so rotating through the 2^64 addresses of one network buys no extra attempts.
 */
export function rateLimitAddress(ip: string): string {
  if (!ip.includes(':')) return ip;
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  const mapped = mappedIpv4(groups);
  if (mapped) return mapped;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/**
 * The network a client address belongs to, as a security mail names it (docs/security.md): an IPv4 address
 * by its /24 (also when a dual-stack socket spells it `::ffff:a.b.c.d`), an IPv6 address by its /48, so the
 * mail tells the owner where a change came from without publishing the exact address.
 */
export function networkOf(ip: string): string | undefined {
  if (isIP(ip) === 4) return `${ip.split('.').slice(0, 3).join('.')}.0/24`;
  const groups = ipv6Groups(ip);
  if (!groups) return undefined;
  const mapped = mappedIpv4(groups);
  if (mapped) return networkOf(mapped);
  return `${groups
    .slice(0, 3)
    .map((g) => g.toString(16))
    .join(':')}::/48`;
}
