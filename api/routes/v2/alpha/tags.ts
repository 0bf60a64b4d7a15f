/**
 * `GET /v2/alpha/tags`, `/v2/alpha/tag/{slug}` and `/v2/alpha/tag/{slug}/subtags`: the schemas here;
 * SQL and mapping in api/queries/alpha/tags.ts.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AlphaTag } from '../../../../schemas/api/alpha-catalog.ts';
import {
  SubtagsQuery,
  SubtagsResponse,
  TagParams,
  TagsQuery,
  TagsResponse,
  tagErrorResponses,
} from '../../../../schemas/api/alpha-tags.ts';
import { keyedErrorResponses } from '../../../../schemas/api/common.ts';
import type { RouteContext } from '../../../context.ts';
import { alphaSubtags, alphaTag, alphaTags } from '../../../queries/alpha/tags.ts';

export async function alphaTagsRoutes(scope: FastifyInstance, ctx: RouteContext) {
  const api = scope.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/v2/alpha/tags',
    {
      schema: {
        summary: 'Alpha tags',
        description:
          'Every tag with the counts, volume, liquidity and trades of the events carrying it (no open ' +
          'interest), its parent in the tag hierarchy and its number of subtags. Sort by volume (default), ' +
          'events or label; search matches label words. Cursor-paginated.',
        tags: ['alpha'],
        querystring: TagsQuery,
        response: { 200: TagsResponse, ...keyedErrorResponses },
      },
    },
    async (request) => alphaTags(ctx, request.query),
  );
  api.get(
    '/v2/alpha/tag/:slug',
    {
      schema: {
        summary: 'Alpha tag',
        description: 'One tag by slug, as in /v2/alpha/tags. 404: no tag has this slug.',
        tags: ['alpha'],
        params: TagParams,
        response: { 200: AlphaTag, ...tagErrorResponses },
      },
    },
    async (request) => alphaTag(ctx, request.params.slug),
  );
  api.get(
    '/v2/alpha/tag/:slug/subtags',
    {
      schema: {
        summary: 'Alpha subtags',
        description:
          "The tag's child tags, each with the number, volume and liquidity of its events of the given " +
          'status (event_count equals what /v2/alpha/events?tag=<child>&status=<status> pages out), by ' +
          'event_count (highest first), then the tag hierarchy’s rank. 404: no tag has this slug.',
        tags: ['alpha'],
        params: TagParams,
        querystring: SubtagsQuery,
        response: { 200: SubtagsResponse, ...tagErrorResponses },
      },
    },
    async (request) => alphaSubtags(ctx, request.params.slug, request.query),
  );
}
