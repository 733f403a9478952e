import { badRequest } from '@trove/core';

/** Distribution names as Debian and Ubuntu use them (`bookworm`, `stable`, `jammy-updates`, `v1.2`). */
const DIST = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;
/** Components are lower case (`main`, `contrib`, `non-free-firmware`). */
const COMPONENT = /^[a-z0-9][a-z0-9._+-]{0,63}$/;
/** Debian policy 5.6.1: at least two characters, lower case, starting alphanumeric. */
const PACKAGE = /^[a-z0-9][a-z0-9.+-]+$/;
/** dpkg-architecture names (`amd64`, `arm64`, `armhf`, `musl-linux-arm64`, `all`). */
const ARCH = /^[a-z0-9][a-z0-9-]{0,63}$/;

export function checkDist(dist: string): string {
  if (!DIST.test(dist) || dist === 'by-hash') throw badRequest(`invalid distribution name "${dist}"`);
  return dist;
}

export function checkComponent(component: string): string {
  if (!COMPONENT.test(component) || component === 'by-hash') throw badRequest(`invalid component name "${component}"`);
  return component;
}

export const isPackageName = (s: string) => PACKAGE.test(s) && s.length <= 128;
/** A concrete architecture (or `all`): not `source`, nor a wildcard (`any`, `linux-any`, `any-amd64`), which only source packages name. */
export const isArchitecture = (s: string) => ARCH.test(s) && s !== 'source' && !/(^|-)any(-|$)/.test(s);

/**
 * Debian policy 5.6.12: `[epoch:]upstream_version[-debian_revision]`. The upstream part starts
 * with a digit; it may contain hyphens only when a revision follows, and colons only after an epoch.
 */
export function isDebianVersion(v: string): boolean {
  if (v.length === 0 || v.length > 256) return false;
  const m = /^(?:(\d+):)?(.+)$/.exec(v);
  if (!m) return false;
  const hasEpoch = m[1] !== undefined;
  const rest = m[2]!;
  const dash = rest.lastIndexOf('-');
  const upstream = dash >= 0 ? rest.slice(0, dash) : rest;
  const revision = dash >= 0 ? rest.slice(dash + 1) : undefined;
  if (revision !== undefined && !/^[A-Za-z0-9+.~]+$/.test(revision)) return false;
  const allowed = hasEpoch ? /^[0-9][A-Za-z0-9.+~:-]*$/ : /^[0-9][A-Za-z0-9.+~-]*$/;
  if (!allowed.test(upstream)) return false;
  if (revision === undefined && upstream.includes('-')) return false;
  return true;
}

/** `hello` → `h`, `libfoo` → `libf` (Debian's pool layout). */
export function poolPrefix(source: string): string {
  return source.startsWith('lib') && source.length > 3 ? source.slice(0, 4) : source.slice(0, 1);
}

/** `pool/{component}/{prefix}/{source}/{package}_{version without epoch}_{arch}.deb`, as dak names pool files. */
export function poolPath(component: string, source: string, pkg: string, version: string, arch: string): string {
  const noEpoch = version.replace(/^\d+:/, '');
  return `pool/${component}/${poolPrefix(source)}/${source}/${pkg}_${noEpoch}_${arch}.deb`;
}
