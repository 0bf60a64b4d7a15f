/**
 * Signed, expiring URLs of the tick datasets' Parquet parts (docs/ticks.md "URLs"): served without an API
 * key by api/routes/tick-parts.ts. A URL is `/v2/data/ticks/parts/<dataset>/<date>/<file>?expires=<Unix
 * s>&signature=<base64url>`, the signature an HMAC-SHA256 over the path and the expiry under a key derived
 * from the server secret (api/secret.ts, the one that signs cursors: every API process of a deployment
 * shares it). Any change to the path or the expiry, or a URL past its expiry, is refused (403).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const PARTS_PREFIX = '/v2/data/ticks/parts';

export interface PartUrlSigner {
  /** The path and query of a part's URL, valid until `expiresS` (Unix s). */
  sign(file: string, expiresS: number): string;
  /** Why a presented URL is refused, or null when it is good at `nowS`. */
  refusal(
    file: string,
    expires: string | undefined,
    signature: string | undefined,
    nowS: number,
  ): string | null;
}

export function createPartUrlSigner(secret: string): PartUrlSigner {
  // A key of its own: a part URL's signature can never stand for a cursor's, or the reverse.
  const key = createHmac('sha256', secret).update('pmdata tick part urls v1').digest();
  const signatureOf = (file: string, expires: string) =>
    createHmac('sha256', key).update(`${file}\n${expires}`).digest('base64url');
  return {
    sign(file, expiresS) {
      return `${PARTS_PREFIX}/${file}?expires=${expiresS}&signature=${signatureOf(file, String(expiresS))}`;
    },
    refusal(file, expires, signature, nowS) {
      if (expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) {
        return 'This URL is not a signed tick part URL: request new URLs from /v2/data/ticks.';
      }
      const want = Buffer.from(signatureOf(file, expires));
      const got = Buffer.from(signature);
      if (got.length !== want.length || !timingSafeEqual(got, want)) {
        return 'The signature of this URL does not match: use the URL exactly as /v2/data/ticks issued it.';
      }
      if (Number(expires) < nowS) {
        return 'This URL expired: request the data again from /v2/data/ticks (free within 24 h of the first request).';
      }
      return null;
    },
  };
}
