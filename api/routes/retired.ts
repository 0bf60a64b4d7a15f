/**
 * SPEC "Retired endpoints": the cross-venue matching endpoints answer 410 Gone with the general error
 * body. They stay in the OpenAPI document, marked deprecated, so clients see what happened to them.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorBody } from '../../schemas/api/common.ts';
import { ApiError } from '../errors.ts';

export const RETIRED_PATHS = [
  '/v2/matching-markets',
  '/v2/matching-markets/pairs',
  '/v2/markets',
  '/v2/markets/listings',
  '/v2/outcomes/:canonical_id',
] as const;

export async function retiredRoutes(app: FastifyInstance) {
  for (const url of RETIRED_PATHS) {
    app.get(
      url,
      {
        schema: {
          summary: `Retired: ${url}`,
          description:
            'Cross-venue market matching was retired on 2026-07-20; this endpoint answers 410 Gone. ' +
            'Use the per-venue market lists (`/v2/{venue}/markets`) and their `canonical_id` filter.',
          tags: ['retired'],
          deprecated: true,
          ...(url.includes(':canonical_id') ? { params: Type.Object({ canonical_id: Type.String() }) } : {}),
          response: { 410: ErrorBody },
        },
      },
      async () => {
        throw new ApiError(
          410,
          'Cross-venue market matching endpoints were retired on 2026-07-20. Use the per-venue market lists ' +
            '(/v2/{venue}/markets) and filter them by canonical_id.',
        );
      },
    );
  }
}
