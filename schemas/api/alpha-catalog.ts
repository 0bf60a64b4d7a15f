/**
 * alpha's catalog resources as the list endpoints return them (SPEC Event, Market, Outcome,
 * MarketRollingMetrics; interface-shapes §1.4, §2.1, §3.2, §4.2): one definition for the stored `doc`
 * of the derived lists (analytics/catalog/ writes `Static<typeof AlphaMarket>` and `AlphaEventDoc`), the
 * responses' validation and serialization, OpenAPI and the TS types. Query parameters and response
 * wrappers live with each endpoint family (alpha-events.ts, alpha-markets.ts, alpha-series.ts,
 * alpha-tags.ts).
 */
import { type Static, Type } from '@sinclair/typebox';
import { MarketRollingMetrics } from './alpha-market-data.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const isoTime = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });
const text = (description: string) => Type.String({ default: '', description });
const usd = (description: string) => Type.Number({ default: 0, description });
const count = (description: string) => Type.Integer({ default: 0, description });

export const AlphaOutcome = Type.Object(
  {
    label: Type.String({ description: 'Outcome label (Yes/No, a team, ...)' }),
    token_id: Type.Union([Type.String(), Type.Null()], { description: 'Outcome token id (decimal)' }),
    canonical_id: Type.Union([Type.String({ pattern: '^pmc_[a-z2-7]{12}$' }), Type.Null()], {
      description:
        'Stable identifier of this real-world outcome, the same on every venue listing it: pmc_ + 12 base32 ' +
        'characters',
    }),
    price: Type.Union([Type.Number(), Type.Null()], {
      description:
        'Current price 0–1: the payout share once resolved, else the book midpoint (< 10 min old), else the ' +
        'newest maker fill; null when none',
    }),
  },
  { title: 'Outcome' },
);
export type AlphaOutcome = Static<typeof AlphaOutcome>;

export const MARKET_STATUSES = ['open', 'closed', 'resolved'] as const;
export type MarketStatus = (typeof MARKET_STATUSES)[number];

export const AlphaMarket = Type.Object(
  {
    condition_id: Type.String({ description: 'CTF condition id, 0x + 64 hex' }),
    question_id: Type.Union([Type.String(), Type.Null()]),
    market_id: Type.String({ description: "The venue's market id" }),
    market_slug: Type.String(),
    title: Type.String({ description: 'The market question' }),
    description: text('Resolution rules'),
    status: Type.String({
      enum: [...MARKET_STATUSES],
      description:
        'resolved once the condition resolved on chain, closed when the venue closed it, else open',
    }),
    winning_side: Nullable(Type.String({ description: 'Label of the outcome with a non-zero payout' })),
    start_time: isoTime('Start (ISO 8601)'),
    end_time: isoTime('Scheduled end (ISO 8601)'),
    close_time: isoTime('When trading closed (ISO 8601)'),
    created_time: isoTime('Creation (ISO 8601)'),
    image_url: text('Image URL'),
    event_id: Nullable(Type.String()),
    event_slug: Nullable(Type.String()),
    event_title: Nullable(Type.String()),
    outcomes: Type.Array(AlphaOutcome),
    total_volume_usd: usd('All-time USD volume'),
    liquidity_usd: usd("Σ price × size of both sides of the first outcome's book"),
    tags: Type.Array(Type.String(), { description: 'Tag slugs' }),
    is_neg_risk: Type.Boolean({ default: false }),
    rolling_metrics: Type.Union([MarketRollingMetrics, Type.Null()], { description: 'Hourly refresh' }),
  },
  { title: 'Market' },
);
export type AlphaMarket = Static<typeof AlphaMarket>;

export const AlphaEventTag = Type.Object({ id: Type.String(), label: Type.String(), slug: Type.String() });
export const AlphaEventSeries = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  title: Type.String(),
  recurrence: Type.Union([Type.String(), Type.Null()]),
});

const EVENT_FIELDS = {
  id: Type.String(),
  ticker: text('Ticker'),
  slug: text('Slug'),
  title: text('Title'),
  description: text('Description'),
  category: text('Category label'),
  tags: Type.Array(AlphaEventTag),
  series: Type.Array(AlphaEventSeries),
  image_url: text('Image URL'),
  icon_url: text('Icon URL'),
  resolution_source: text('Resolution source'),
  start_date: isoTime('Start (ISO 8601)'),
  end_date: isoTime('End (ISO 8601)'),
  creation_date: isoTime('Creation (ISO 8601)'),
  closed_time: isoTime('Latest close of its markets once all closed (ISO 8601)'),
  neg_risk: Type.Boolean({ default: false }),
  neg_risk_market_id: Nullable(Type.String()),
  enable_order_book: Type.Boolean({ default: false }),
  status: Type.String({
    enum: ['open', 'closed'],
    default: 'open',
    description: 'open while any market is open',
  }),
  market_count: count('Markets'),
  total_volume_usd: usd('All-time USD volume of its markets'),
  trades_all_time: count('All-time trade count of its markets'),
  liquidity_usd: usd('Σ liquidity_usd of its markets'),
  current_oi_usd: usd('Current open interest of its markets, USD'),
  rolling_metrics: Type.Union([MarketRollingMetrics, Type.Null()], {
    description: "Its markets' rolling metrics summed (computed_at: the newest)",
  }),
};

/** An event as stored in `alpha_event_list.doc`: everything but `markets`. */
export const AlphaEventDoc = Type.Object(EVENT_FIELDS);
export type AlphaEventDoc = Static<typeof AlphaEventDoc>;

export const AlphaEvent = Type.Object(
  {
    ...EVENT_FIELDS,
    markets: Type.Union([Type.Array(AlphaMarket), Type.Null()], {
      description: 'With include_markets=true: up to markets_per_event markets, by volume; else null',
    }),
  },
  { title: 'Event' },
);
export type AlphaEvent = Static<typeof AlphaEvent>;

export const AlphaSeries = Type.Object(
  {
    id: Type.String(),
    slug: Type.String(),
    ticker: text('Ticker'),
    title: text('Title'),
    description: text('Description'),
    series_type: text('Series type'),
    recurrence: Type.Union([Type.String(), Type.Null()], { description: 'daily, weekly, monthly, ...' }),
    image_url: text('Image URL'),
    icon_url: text('Icon URL'),
    active: Type.Boolean({ description: 'Has an open event' }),
    closed: Type.Boolean({ description: 'All its events closed' }),
    event_count: count('Events'),
    open_event_count: count('Open events'),
    total_volume_usd: usd('All-time USD volume of its events'),
    liquidity_usd: usd('Liquidity of its events, USD'),
    trades_all_time: count('All-time trades of its events'),
    created_time: isoTime('Creation (ISO 8601)'),
  },
  { title: 'Series' },
);
export type AlphaSeries = Static<typeof AlphaSeries>;

/** Counts and money of a tag or a category (no open interest, SPEC). */
const ROLLUP_FIELDS = {
  event_count: count('Events'),
  open_event_count: count('Open events'),
  market_count: count('Markets of those events'),
  total_volume_usd: usd('All-time USD volume of those events'),
  liquidity_usd: usd('Liquidity of those events, USD'),
  trades_all_time: count('All-time trades of those events'),
};

export const AlphaTag = Type.Object(
  {
    id: Type.String(),
    label: Type.String(),
    slug: Type.String(),
    ...ROLLUP_FIELDS,
    parent_slug: Type.Union([Type.String(), Type.Null()], {
      description: 'The related tag it sits below (docs/catalog.md "Tag hierarchy"); null at the top',
    }),
    subtag_count: count('Related tags below it'),
  },
  { title: 'Tag' },
);
export type AlphaTag = Static<typeof AlphaTag>;

export const AlphaCategory = Type.Object(
  {
    category: Type.String({ description: 'The events\' category label, e.g. "Sports"' }),
    slug: Type.String({ description: 'Its slug, e.g. "sports"; the events filter takes either' }),
    ...ROLLUP_FIELDS,
  },
  { title: 'Category' },
);
export type AlphaCategory = Static<typeof AlphaCategory>;
