/**
 * Market slugs of venue alpha from its catalog (`alpha_markets`, docs/catalog.md): the resolver the
 * trades and activity routes use for their `market_slug` fields and filters, and the open-interest
 * route for its `market_id` (api/markets.ts). Three in-process maps (slug → condition ids, condition id
 * → slug, condition id → market id) are loaded on first use and reloaded in the
 * background every `refreshMs` (default 60 s), never on a request's path once loaded: a market synced
 * from the metadata API has its slug within that time.
 */
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { select } from '../../../core/clickhouse/table.ts';
import type { Logger } from '../../../core/logger.ts';
import { ALPHA_MARKETS } from '../../../schemas/tables/alpha-catalog.ts';
import type { MarketSlugResolver } from '../../markets.ts';

export interface AlphaMarketSlugs extends MarketSlugResolver {
  marketId(conditionId: string): Promise<string | null>;
  /** Reloads the maps now; resolves to the number of markets with a slug. */
  refresh(): Promise<number>;
  /** Stops the background reloads. */
  close(): void;
}

/** A market's condition, slug and id. */
const MARKET_SLUG = select(ALPHA_MARKETS, ['condition_id', 'slug', 'id']);

export function createAlphaMarketSlugs(
  deps: { clickhouse: ClickHouse; log: Logger },
  o: { refreshMs?: number } = {},
): AlphaMarketSlugs {
  const refreshMs = o.refreshMs ?? 60_000;
  let bySlug = new Map<string, string[]>();
  let byCondition = new Map<string, string>();
  let idByCondition = new Map<string, string>();
  let loading: Promise<number> | null = null;
  let loaded: Promise<number> | null = null;
  let timer: NodeJS.Timeout | undefined;

  function refresh(): Promise<number> {
    loading ??= (async () => {
      try {
        // Ordered by id: were a condition to have two markets (the upstream has one), the first id wins.
        const rows = await deps.clickhouse.read(
          'api.alpha.market_slugs',
          `SELECT ${MARKET_SLUG.sql} FROM alpha_markets FINAL WHERE condition_id != '' ORDER BY id`,
        );
        const slugs = new Map<string, string[]>();
        const conditions = new Map<string, string>();
        const ids = new Map<string, string>();
        let withSlug = 0;
        for (const raw of rows) {
          const { condition_id: condition, slug, id } = MARKET_SLUG.zip(raw);
          if (!ids.has(condition)) ids.set(condition, id);
          if (slug === '') continue;
          withSlug++;
          conditions.set(condition, slug);
          const list = slugs.get(slug);
          if (list) list.push(condition);
          else slugs.set(slug, [condition]);
        }
        bySlug = slugs;
        byCondition = conditions;
        idByCondition = ids;
        return withSlug;
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  /** The first load (awaited by the first caller), then background reloads; a failed reload is logged. */
  function ready(): Promise<number> {
    if (!loaded) {
      loaded = refresh();
      timer = setInterval(() => {
        refresh().catch((err) => deps.log.warn({ err }, 'Could not reload alpha market slugs'));
      }, refreshMs);
      timer.unref();
    }
    return loaded;
  }

  return {
    async conditionIds(slug) {
      await ready();
      return bySlug.get(slug) ?? [];
    },
    async slugs(conditionIds) {
      await ready();
      const out = new Map<string, string>();
      for (const c of conditionIds) {
        const slug = byCondition.get(c);
        if (slug !== undefined) out.set(c, slug);
      }
      return out;
    },
    async marketId(conditionId) {
      await ready();
      return idByCondition.get(conditionId) ?? null;
    },
    refresh,
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
