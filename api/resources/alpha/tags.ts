/**
 * `GET /v2/alpha/tags`, `/v2/alpha/tag/{slug}` and `/v2/alpha/tag/{slug}/subtags`: SQL and mapping in
 * api/queries/alpha/tags.ts.
 */
import { AlphaTag } from '../../../schemas/api/alpha-catalog.ts';
import {
  SubtagsQuery,
  SubtagsResponse,
  TagParams,
  TagsQuery,
  TagsResponse,
  tagErrorResponses,
} from '../../../schemas/api/alpha-tags.ts';
import { keyedErrorResponses } from '../../../schemas/api/common.ts';
import { alphaSubtags, alphaTag, alphaTags } from '../../queries/alpha/tags.ts';
import { defineResource, METERED } from '../define.ts';
import { ALPHA_CATALOG_LISTS } from './sources.ts';

export const alphaTagsResource = defineResource({
  path: '/v2/alpha/tags',
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
  access: METERED,
  // The tag list (alpha_tag_list), rebuilt whole by the catalog build.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { query }) => alphaTags(ctx, query),
});

export const alphaTagResource = defineResource({
  path: '/v2/alpha/tag/:slug',
  schema: {
    summary: 'Alpha tag',
    description: 'One tag by slug, as in /v2/alpha/tags. 404: no tag has this slug.',
    tags: ['alpha'],
    params: TagParams,
    response: { 200: AlphaTag, ...tagErrorResponses },
  },
  access: METERED,
  // As /v2/alpha/tags.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { params }) => alphaTag(ctx, params.slug),
});

export const alphaSubtagsResource = defineResource({
  path: '/v2/alpha/tag/:slug/subtags',
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
  access: METERED,
  // The tag list and the event list (their counts), both rebuilt whole by the catalog build.
  sources: [ALPHA_CATALOG_LISTS],
  read: (ctx, { params, query }) => alphaSubtags(ctx, params.slug, query),
});
