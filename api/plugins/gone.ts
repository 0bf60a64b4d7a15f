/**
 * Paths that no longer lead anywhere, answered before any key check:
 * - a removed venue's data paths `/v2/<venue>/...` (REMOVED_VENUES) → 404, whatever routes exist;
 * - the old `/v1/...` HTTP paths → 404 pointing to `/v2` (WebSocket upgrades on /v1 pass through:
 *   the streaming service lives there).
 * The retired cross-venue endpoints are real routes answering 410 (api/routes/retired.ts).
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { unencapsulated } from './unencapsulated.ts';

export const gonePathsPlugin = unencapsulated(
  async (app: FastifyInstance, opts: { removedVenues: readonly string[] }) => {
    const removed = new Set(opts.removedVenues);
    app.addHook('onRequest', async (request) => {
      const path = request.url.split('?')[0] ?? '';
      const segments = path.split('/');
      if (segments[1] === 'v2' && segments[2] !== undefined && removed.has(segments[2])) {
        throw new ApiError(404, `Venue ${segments[2]} was removed: its endpoints are no longer served.`);
      }
      if (segments[1] === 'v1' && request.headers.upgrade?.toLowerCase() !== 'websocket') {
        throw new ApiError(
          404,
          'API v1 is no longer served over HTTP: use the /v2 endpoints (for example /v2/alpha/trades) with ' +
            'your key in the x-api-key header; see /docs.',
        );
      }
    });
  },
  'pmdata-gone-paths',
);
