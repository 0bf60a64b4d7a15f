/**
 * `GET|HEAD /v2/data/ticks/parts/:dataset/:date/:file`: a tick dataset's Parquet part, served without an
 * API key (a public rule in api/access.ts) to whoever holds its signed URL (api/ticks/urls.ts, issued by
 * `/v2/data/ticks`): an altered or expired URL is a 403. One byte range (`Range: bytes=a-b`, `a-`, `-n`)
 * answers 206 with Content-Range; an unsatisfiable one 416. The file comes from TICKS_DIR.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorBody } from '../../schemas/api/common.ts';
import { ticksSettings } from '../../schemas/ticks.ts';
import type { RouteContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { resolveApiSecret } from '../secret.ts';
import { createPartUrlSigner, PARTS_PREFIX, type PartUrlSigner } from '../ticks/urls.ts';

const Params = Type.Object({
  dataset: Type.String({ maxLength: 100 }),
  date: Type.String({ maxLength: 100 }),
  file: Type.String({ maxLength: 100 }),
});
const Query = Type.Object({
  expires: Type.Optional(Type.String({ maxLength: 100 })),
  signature: Type.Optional(Type.String({ maxLength: 200 })),
});

/** The byte range of a `Range` header over `size` bytes: [start, end] inclusive, 'unsatisfiable', or null (whole). */
export function byteRange(
  header: string | undefined,
  size: number,
): [number, number] | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: answered whole (RFC 9110 lets a server ignore Range).
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return [start, end];
}

export async function tickPartRoutes(app: import('fastify').FastifyInstance, ctx: RouteContext) {
  // Read at the first request: an app whose configuration was loaded without the ticks section (an
  // embedder's, a test's) serves everything else.
  let resolved: { dir: string; signer: PartUrlSigner } | undefined;
  const resolve = () =>
    (resolved ??= {
      dir: ticksSettings(ctx.deps.config).dir,
      signer: createPartUrlSigner(ctx.secret ?? resolveApiSecret(ctx.deps.config)),
    });
  app.route({
    method: ['GET', 'HEAD'],
    url: `${PARTS_PREFIX}/:dataset/:date/:file`,
    schema: {
      // Not an API route a client composes: it follows the URLs /v2/data/ticks issues (docs/ticks.md).
      hide: true,
      summary: 'A tick dataset part',
      description:
        'A Parquet part of a tick dataset, by the signed URL /v2/data/ticks issued (no API key). HEAD and one ' +
        'byte range (206, Content-Range) are answered; an altered or expired URL is a 403.',
      tags: ['data'],
      params: Params,
      querystring: Query,
      response: {
        403: Type.Object(ErrorBody.properties, { description: 'Forbidden: altered or expired URL' }),
        404: Type.Object(ErrorBody.properties, { description: 'Not Found: the part is gone (recompacted)' }),
      },
    },
    exposeHeadRoute: false,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const { dataset, date, file } = request.params as { dataset: string; date: string; file: string };
      const { expires, signature } = request.query as { expires?: string; signature?: string };
      const rel = `${dataset}/${date}/${file}`;
      const { dir, signer } = resolve();
      const why = signer.refusal(rel, expires, signature, Math.floor(Date.now() / 1000));
      if (why) throw new ApiError(403, why);
      // A signed path is one the API issued (a manifest path): still, never leave TICKS_DIR.
      const full = path.resolve(dir, rel);
      if (!full.startsWith(`${dir}${path.sep}`)) throw new ApiError(403, 'Not a tick part path.');
      let size: number;
      try {
        size = fs.statSync(full).size;
      } catch {
        throw new ApiError(
          404,
          'This part is gone (its day was compacted again): request new URLs from /v2/data/ticks.',
        );
      }
      const range = byteRange(request.headers.range, size);
      reply.header('accept-ranges', 'bytes');
      reply.header('cache-control', 'private, no-transform');
      reply.type('application/vnd.apache.parquet');
      if (range === 'unsatisfiable') {
        reply.header('content-range', `bytes */${size}`);
        throw new ApiError(416, `The range is outside the file's ${size} bytes.`, {
          'content-range': `bytes */${size}`,
        });
      }
      const [start, end] = range ?? [0, size - 1];
      if (range) {
        reply.code(206);
        reply.header('content-range', `bytes ${start}-${end}/${size}`);
      }
      reply.header('content-length', String(size === 0 ? 0 : end - start + 1));
      if (request.method === 'HEAD' || size === 0) return reply.send();
      return reply.send(fs.createReadStream(full, { start, end }));
    },
  });
}
