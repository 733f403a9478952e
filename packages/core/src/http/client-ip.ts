import { BlockList, isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import type { TroveEnv } from './env.js';

/** Builds a matcher for `trusted_proxies` CIDRs. */
export function proxyMatcher(cidrs: string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const c of cidrs) {
    const [addr, bits] = c.split('/');
    const type = isIP(addr!) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(addr!)) continue;
    if (bits === undefined) list.addAddress(addr!, type);
    else list.addSubnet(addr!, Number(bits), type);
  }
  return (ip) => {
    const v = isIP(ip);
    if (!v) return false;
    if (v === 6 && ip.startsWith('::ffff:')) return list.check(ip.slice(7), 'ipv4');
    return list.check(ip, v === 6 ? 'ipv6' : 'ipv4');
  };
}

export interface ClientIpOptions {
  /** Current matcher; a function so `trusted_proxies` changes apply live. */
  trusted: () => (ip: string) => boolean;
}

/**
 * Sets `clientIp`: the socket address, or, walking `X-Forwarded-For` from the right,
 * the first address not in `trusted_proxies` (only while every hop so far is trusted).
 */
export function clientIp(opts: ClientIpOptions): MiddlewareHandler<TroveEnv> {
  return async function clientIpMiddleware(c, next) {
    let ip = c.env?.incoming?.socket?.remoteAddress ?? '0.0.0.0';
    const isTrusted = opts.trusted();
    const xff = c.req.header('x-forwarded-for');
    if (xff && isTrusted(ip)) {
      const hops = xff.split(',').map((s) => s.trim()).filter(Boolean);
      while (hops.length && isTrusted(ip)) ip = hops.pop()!;
    }
    if (ip.startsWith('::ffff:')) ip = ip.slice(7);
    c.set('clientIp', ip);
    await next();
  };
}
