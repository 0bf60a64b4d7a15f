/**
 * Admin authentication, framework-free so the API (api/plugins/admin.ts), the stream server and the
 * worker's and scheduler's metrics server (core/metrics-server.ts) apply the same rule:
 * - the admin key as `Authorization: Bearer <key>` or HTTP Basic (any user, password = key), so browsers
 *   and Prometheus both work; compared in constant time (digests of equal length);
 * - missing or wrong → 401 with `WWW-Authenticate: Basic realm="pmdata admin"`; an API key of any tier is
 *   just a wrong key;
 * - past 10 wrong keys in a minute from one IP (a request without a key is not a wrong key: a browser
 *   asks first without one), wrong keys get 429 (counted in Redis, so every process
 *   agrees); the right key always passes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Wrong keys one IP may send per minute before the next ones answer 429. */
export const ADMIN_WRONG_KEYS_PER_MINUTE = 10;

export const ADMIN_REALM = 'Basic realm="pmdata admin"';

export interface AdminRefusal {
  status: 401 | 429;
  headers: Record<string, string>;
  body: { error: string; message: string };
}

export interface AdminAuth {
  /** null = allowed; else the answer to send. */
  check(req: { authorization: string | undefined; ip: string }): Promise<AdminRefusal | null>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** The key a request presents: Bearer's token, or Basic's password; undefined when neither. */
export function presentedAdminKey(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const [scheme, value] = authorization.trim().split(/\s+/, 2);
  if (!scheme || !value) return undefined;
  if (scheme.toLowerCase() === 'bearer') return value;
  if (scheme.toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

export function createAdminAuth(opts: { key: string; redis: Redis; prefix?: string }): AdminAuth {
  const expected = digest(opts.key);
  const prefix = opts.prefix ?? 'pmdata:admin:wrong:';
  const refuse = (status: 401 | 429, message: string): AdminRefusal => ({
    status,
    headers:
      status === 401
        ? { 'WWW-Authenticate': ADMIN_REALM }
        : { 'WWW-Authenticate': ADMIN_REALM, 'Retry-After': '60' },
    body: { error: status === 401 ? 'unauthorized' : 'too_many_requests', message },
  });
  return {
    async check({ authorization, ip }) {
      const presented = presentedAdminKey(authorization);
      if (presented === undefined) {
        return refuse(
          401,
          'Admin routes need the admin key (Authorization: Bearer <key>, or HTTP Basic with the key as password)',
        );
      }
      if (timingSafeEqual(digest(presented), expected)) return null;
      const bucket = `${prefix}${ip}:${Math.floor(Date.now() / 60_000)}`;
      const wrong = await opts.redis.multi().incr(bucket).expire(bucket, 120).exec();
      const count = Number(wrong?.[0]?.[1] ?? 0);
      if (count > ADMIN_WRONG_KEYS_PER_MINUTE) {
        return refuse(429, 'Too many wrong admin keys from this address: wait a minute');
      }
      return refuse(401, 'Wrong admin key');
    },
  };
}
