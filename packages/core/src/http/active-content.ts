/**
 * Media types a browser renders as active content (it can run script): HTML, XHTML, SVG, any
 * XML (an XHTML namespace makes it a page), JavaScript, and every `text/*` other than
 * `text/plain`. Everything else (archives, jars, `.deb`, JSON, octet-stream, images other
 * than SVG) a browser shows inertly or downloads.
 */
export function isActiveContentType(contentType: string): boolean {
  // A browser reads a header with commas as several types and takes the last it knows: any active part counts.
  return contentType.split(',').some(isActiveType);
}

function isActiveType(contentType: string): boolean {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  if (t === 'text/plain') return false;
  if (t.startsWith('text/')) return true;
  // `x-` prefixed names (application/x-javascript) are still run by browsers.
  return /(^|[/+])(x-)?(xml|html|xhtml|svg|javascript|ecmascript)(\+xml)?$/.test(t) || t.endsWith('+xml') || t === 'image/svg+xml';
}

/** Plain text in place of an active type: for formats whose clients ignore the type (Maven's POMs and metadata). */
export function inertContentType(contentType: string): string {
  return isActiveContentType(contentType) ? 'text/plain; charset=utf-8' : contentType;
}

/**
 * The headers that say what stored bytes are, in one place for every download: an active
 * type is still named (clients that want it get it) but marked `attachment`, so a browser
 * saves it instead of rendering it on Trove's origin.
 */
export function contentHeaders(contentType: string, filename?: string): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': contentType };
  if (isActiveContentType(contentType)) {
    headers['Content-Disposition'] = filename ? `attachment; filename*=UTF-8''${encodeURIComponent(filename)}` : 'attachment';
  }
  return headers;
}

/**
 * `Sec-Fetch-Dest` values under which a browser would run or apply a response inside the page
 * that asked for it: a script, style sheet, worker or plugin. A download link (`document`), a
 * `fetch()` (`empty`) and an image stay allowed; clients other than browsers send no such header.
 */
const EMBEDDING_DESTINATIONS = new Set(['script', 'style', 'worker', 'sharedworker', 'serviceworker', 'audioworklet', 'paintworklet', 'xslt', 'object', 'embed', 'manifest']);

/**
 * Whether a page of Trove's own origin asks for stored bytes as its code or style (see
 * EMBEDDING_DESTINATIONS). Another site's page may still include a script or style sheet kept in a
 * raw repository: it runs in that site's origin, not Trove's (`Sec-Fetch-Site: cross-site`/`same-site`).
 */
export function isEmbeddingRequest(secFetchDest: string | string[] | undefined, secFetchSite: string | string[] | undefined): boolean {
  if (typeof secFetchDest !== 'string' || !EMBEDDING_DESTINATIONS.has(secFetchDest.toLowerCase())) return false;
  const site = typeof secFetchSite === 'string' ? secFetchSite.toLowerCase() : '';
  return site !== 'cross-site' && site !== 'same-site';
}
