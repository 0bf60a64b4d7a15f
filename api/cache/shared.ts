/**
 * The response cache shared by several API processes (API_CACHE_SHARED): entries in Redis under
 * `apicache:<key>` with a TTL, read when the process's own LRU misses. An entry is one string:
 * etag length (1 byte), etag, content-type length (1 byte), content-type, body.
 */
import type { Redis } from 'ioredis';
import type { CachedResponse } from './lru.ts';

export interface SharedResponseCache {
  get(key: string): Promise<CachedResponse | undefined>;
  set(key: string, value: CachedResponse, ttlMs: number): Promise<void>;
}

const redisKey = (key: string) => `apicache:${key}`;

export function encodeEntry(v: CachedResponse): Buffer {
  const etag = Buffer.from(v.etag, 'latin1');
  const type = Buffer.from(v.contentType, 'latin1');
  if (etag.length > 255 || type.length > 255) throw new Error('ETag or content-type too long to share');
  return Buffer.concat([Buffer.from([etag.length]), etag, Buffer.from([type.length]), type, v.body]);
}

export function decodeEntry(raw: Buffer): CachedResponse | undefined {
  if (raw.length < 2) return undefined;
  const etagEnd = 1 + raw[0]!;
  if (etagEnd >= raw.length) return undefined;
  const typeEnd = etagEnd + 1 + raw[etagEnd]!;
  if (typeEnd > raw.length) return undefined;
  return {
    etag: raw.toString('latin1', 1, etagEnd),
    contentType: raw.toString('latin1', etagEnd + 1, typeEnd),
    body: raw.subarray(typeEnd),
  };
}

export function createSharedResponseCache(redis: Redis): SharedResponseCache {
  return {
    async get(key) {
      const raw = await redis.getBuffer(redisKey(key));
      return raw ? decodeEntry(raw) : undefined;
    },
    async set(key, value, ttlMs) {
      await redis.set(redisKey(key), encodeEntry(value), 'PX', ttlMs);
    },
  };
}
