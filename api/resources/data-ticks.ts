/**
 * `GET /v2/data/ticks`: the tick datasets' signed Parquet part URLs (docs/ticks.md); the schema in
 * schemas/api/data-ticks.ts, the rules, manifest read and charge in api/queries/data-ticks.ts. The files are
 * served without a key by api/routes/tick-parts.ts.
 */
import { keyedErrorResponses } from '../../schemas/api/common.ts';
import { DataTicksQuery, DataTicksResponse, TicksNotFound } from '../../schemas/api/data-ticks.ts';
import {
  TICKS_MAX_DAYS,
  TICKS_MAX_IDS,
  TICKS_USD_PER_GIB,
  type TicksSettings,
  ticksSettings,
} from '../../schemas/ticks.ts';
import { ticksAnswer, ticksRequest } from '../queries/data-ticks.ts';
import { resolveApiSecret } from '../secret.ts';
import { createPartUrlSigner, type PartUrlSigner } from '../ticks/urls.ts';
import { defineResource, METERED } from './define.ts';

export const dataTicksResource = defineResource({
  path: '/v2/data/ticks',
  schema: {
    summary: 'Tick history datasets',
    description:
      'Signed URLs of the zstd Parquet files of a dataset for one day (date), a range of days (start_date and ' +
      `end_date) or the days of a time range (start_time and end_time, Unix ms): exactly one of them, at most ` +
      `${TICKS_MAX_DAYS} days (else 400). A day is served once final (compacted after the data passed its end); ` +
      'a later day is a 404 not_final naming the latest final day, a day before the first a 404 not_available. ' +
      `market_id (up to ${TICKS_MAX_IDS} tickers) keeps the parts whose ticker range holds one. Priced at ` +
      `${TICKS_USD_PER_GIB.toFixed(2)} USD per GiB of total_bytes, no minimum, charged when the URLs are issued; ` +
      'the same request by the same key within 24 h issues them again free (reused). The URLs need no key and ' +
      'expire (expires_at); they answer HEAD and Range requests. Counted toward the monthly quota.',
    tags: ['data'],
    querystring: DataTicksQuery,
    response: { 200: DataTicksResponse, ...keyedErrorResponses, 404: TicksNotFound },
  },
  access: METERED,
  sources: { uncached: 'each answer charges the key and carries URLs signed to expire from now' },
  // Read at the first request: an app whose configuration was loaded without the ticks section (an
  // embedder's, a test's) serves everything else.
  setup: (_scope, ctx) => {
    let env: { settings: TicksSettings; signer: PartUrlSigner } | undefined;
    return () =>
      (env ??= {
        settings: ticksSettings(ctx.deps.config),
        signer: createPartUrlSigner(ctx.secret ?? resolveApiSecret(ctx.deps.config)),
      });
  },
  read: (ctx, { query, request }, env) => ticksAnswer(ctx, ticksRequest(query), { request, ...env() }),
});
