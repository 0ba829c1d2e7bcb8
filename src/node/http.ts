/**
 * HTTP helpers shared by the Node servers of this repository (the data service and the gateway): content
 * negotiation, conditional requests. They import nothing of ours but `shared`.
 */

/** If-None-Match uses the weak comparison over a list of tags, or '*' (RFC 9110 13.1.2). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/** Whether Accept-Encoding lists `coding` with a non-zero quality (`gzip;q=0` refuses it). */
export function acceptsEncoding(header: string | undefined, coding: 'gzip' | 'deflate' | 'br'): boolean {
  return (header ?? '').split(',').some((part) => {
    const [name = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const named = name === coding || (coding === 'gzip' && name === 'x-gzip');
    return named && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/** Whether Accept-Encoding lists gzip with a non-zero quality (`gzip;q=0` refuses it). */
export function acceptsGzip(header: string | undefined): boolean {
  return acceptsEncoding(header, 'gzip');
}
