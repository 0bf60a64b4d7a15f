/**
 * Entity tags (RFC 9110 §8.8.3) and the If-None-Match precondition (§13.1.2).
 */
import { createHash } from 'node:crypto';

/** A strong ETag of the body bytes: the bytes are the representation. */
export function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * True when If-None-Match `header` names `etag`, so a GET or HEAD is answered 304: `*` matches any
 * current representation; otherwise the header is a comma-separated list of entity tags compared with
 * the weak comparison (`W/"x"` matches `"x"`: only the opaque tags are compared). An entity tag may
 * itself hold commas, so the list is read tag by tag, not split. Malformed members are skipped.
 */
export function ifNoneMatchHits(header: string | string[] | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const s = Array.isArray(header) ? header.join(', ') : header;
  if (s.trim() === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === ' ' || c === '\t' || c === ',') {
      i++;
      continue;
    }
    if (s.startsWith('W/', i)) i += 2;
    if (s[i] !== '"') {
      // Not an entity tag: skip to the next member.
      const comma = s.indexOf(',', i);
      if (comma < 0) return false;
      i = comma + 1;
      continue;
    }
    const end = s.indexOf('"', i + 1);
    if (end < 0) return false;
    if (s.slice(i, end + 1) === opaque) return true;
    i = end + 1;
  }
  return false;
}
