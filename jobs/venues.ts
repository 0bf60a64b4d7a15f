/**
 * THE list of venues, `VENUES`: one unit per venue, and the only file outside a venue's own folders that
 * names venue codes (test/import-direction.test.ts). A unit holds the venue's config section, the status
 * source of its REST polls, its streams (ingest's sync of each, with its modes, leases and intervals),
 * what `pmdata backfill <venue>` runs, and for the chain venue alpha its chain and catalog/book jobs.
 * Derived from the list, never written by hand elsewhere: the config sections (jobs/config.ts), the jobs
 * (jobs/registry.ts) and schedules (jobs/schedules.ts), the status sources (ingest/sources.ts, through
 * jobs/ops-sampler.ts), the canonical job's venues, the backfill dispatch (jobs/commands/backfill.ts) and
 * the demo's venue steps (jobs/commands/demo.ts). A new venue is one line here (docs/contributing.md).
 */
import type { Config, ConfigSection } from '../core/config.ts';
import type { Deps } from '../core/deps.ts';
import { venuesConfig } from '../ingest/rest/config.ts';
import type { RestSource } from '../ingest/sources.ts';
import { alphaConfig } from '../ingest/venues/alpha/config.ts';
import { betaConfig } from '../ingest/venues/beta/config.ts';
import { type BetaSyncDeps, pollBetaTrades, syncBeta } from '../ingest/venues/beta/sync.ts';
import { deltaConfig } from '../ingest/venues/delta/config.ts';
import { type DeltaSyncDeps, syncDelta } from '../ingest/venues/delta/sync.ts';
import { epsilonConfig } from '../ingest/venues/epsilon/config.ts';
import { type EpsilonSyncDeps, syncEpsilon } from '../ingest/venues/epsilon/sync.ts';
import { gammaConfig } from '../ingest/venues/gamma/config.ts';
import { type GammaSyncDeps, type GammaSyncSummary, syncGamma } from '../ingest/venues/gamma/sync.ts';
import { alphaBackfillJob } from './processors/alpha-backfill.ts';
import { alphaBookJob, BOOK_SCHEDULES } from './processors/alpha-book.ts';
import { alphaCatalogJob, CATALOG_SCHEDULES } from './processors/alpha-catalog.ts';
import { alphaFollowJob } from './processors/alpha-follow.ts';
import {
  type StreamJob,
  type VenueJob,
  type VenueStream,
  type VenueSyncMode,
  venueStreamJob,
  venueStreamLease,
  venueStreamSchedules,
} from './processors/venue-streams.ts';
import type { Schedule } from './schedules.ts';

/** What a listing (a markets stream's full run) reports: the backfill's summary and progress. */
export interface ListingSummary {
  read: number;
  written: number;
  events: { read: number; written: number };
  quarantined: number;
  requests: number;
  ms: number;
}

export type ListingProgress<S> = (step: string, summary: S) => void;

/** What `pmdata backfill <venue>` runs (jobs/commands/backfill-*.ts print it). */
export type VenueBackfill =
  /** A full listing now (the markets stream's `reconcile`); no trades stream: `--trades` is refused. */
  | {
      kind: 'listing';
      listing(deps: Deps, onProgress: ListingProgress<ListingSummary>): Promise<ListingSummary>;
      /** What the venue calls its events (default `events`). */
      eventsWord?: string;
      /** A further figure of the summary, after the events' (`<n> <label>`). */
      more?(summary: ListingSummary): { n: number; label: string };
    }
  /** A full listing with series, then with `--trades` the trades down to `--from`. */
  | {
      kind: 'series-trades';
      listing(deps: Deps, onProgress: ListingProgress<SeriesListingSummary>): Promise<SeriesListingSummary>;
      trades(deps: Deps, from: number | null): Promise<TradesBackfillSummary>;
    };

export interface SeriesListingSummary extends ListingSummary {
  series: { read: number; written: number };
}

export interface TradesBackfillSummary {
  read: number;
  written: number;
  quarantined: number;
  requests: number;
}

/** One venue. */
export interface Venue {
  code: 'alpha' | 'beta' | 'gamma' | 'delta' | 'epsilon';
  /** Its config sections (ingest/venues/<code>/config.ts; a REST venue's after the shared `venues`). */
  config: ConfigSection;
  /** Whether it is polled over REST only (the shared `venues` section, backfill and demo steps apply). */
  rest: boolean;
  /** The status source of its REST polls and the `venue` they record (ingest/sources.ts). */
  source: RestSource;
  /** Its streams (a job and schedules each). */
  streams: readonly VenueStream<unknown>[];
  /** Jobs and schedules of its own beside the streams' (alpha's chain, catalog and book). */
  jobs?: readonly VenueJob[];
  schedules?: readonly Schedule[];
  /** Work enqueued at each scheduler start. */
  atStart?: readonly { job: VenueJob; payload: unknown }[];
  backfill?: VenueBackfill;
}

const pollEvery = (c: Config) => venuesConfig.of(c).marketsPollS * 1000;
const reconcileEvery = (c: Config) => venuesConfig.of(c).reconcileS * 1000;

/** A markets stream polled every VENUE_MARKETS_POLL_S and reconciled every VENUE_RECONCILE_S. */
function marketsStream<S extends ListingSummary>(
  run: (deps: Deps, mode: VenueSyncMode) => Promise<S>,
  reconcileLeases?: readonly string[],
): VenueStream<S> {
  return {
    name: 'markets',
    modes: ['poll', 'reconcile'],
    attempts: 5,
    ...(reconcileLeases ? { reconcileLeases } : {}),
    every: [
      { mode: 'poll', everyMs: pollEvery },
      { mode: 'reconcile', everyMs: reconcileEvery },
    ],
    run,
    canonicalWrites: (s) => s.written + s.events.written,
  };
}

/** A listing venue (markets and events only): its stream and its backfill. */
function listingVenue<S extends ListingSummary>(
  code: 'gamma' | 'delta' | 'epsilon',
  config: ConfigSection,
  sync: (deps: Deps, o: { mode: VenueSyncMode; onProgress?: ListingProgress<S> }) => Promise<S>,
  o: { eventsWord?: string; more?(summary: S): { n: number; label: string } } = {},
): Venue {
  return {
    code,
    config,
    rest: true,
    source: { source: code, venue: code },
    streams: [marketsStream((deps, mode) => sync(deps, { mode }))],
    backfill: {
      kind: 'listing',
      listing: (deps, onProgress) => sync(deps, { mode: 'reconcile', onProgress }),
      ...(o.eventsWord ? { eventsWord: o.eventsWord } : {}),
      ...(o.more ? { more: o.more } : {}),
    },
  };
}

const alpha: Venue = {
  code: 'alpha',
  config: alphaConfig,
  rest: false,
  source: { source: 'alpha-catalog', venue: 'alpha' },
  streams: [],
  jobs: [alphaBackfillJob, alphaFollowJob, alphaCatalogJob, alphaBookJob],
  schedules: [
    {
      // The live follower runs as a job of bounded length that is re-enqueued: a crashed worker's follower
      // is picked up by another within one interval, and a Redis lease keeps it to one at a time.
      id: 'alpha:follow',
      job: alphaFollowJob,
      everyMs: () => 30_000,
      payload: { maxRunMs: 300_000 },
    },
    ...CATALOG_SCHEDULES,
    ...BOOK_SCHEDULES,
  ],
  atStart: [{ job: alphaCatalogJob, payload: { mode: 'full' } }],
};

const betaTradesLease = venueStreamLease('beta', 'trades');

const beta: Venue = {
  code: 'beta',
  config: betaConfig,
  rest: true,
  source: { source: 'beta', venue: 'beta' },
  streams: [
    // The reconciliation inserts trades too (its per-ticker check): it holds the trades lease as well.
    marketsStream((deps, mode) => syncBeta(deps, { mode }), [betaTradesLease]),
    {
      name: 'trades',
      modes: ['poll'],
      attempts: 3,
      every: [{ mode: 'poll', everyMs: (c) => betaConfig.of(c).tradesPollS * 1000 }],
      run: (deps) => pollBetaTrades(deps),
    },
  ],
  backfill: {
    kind: 'series-trades',
    listing: (deps: BetaSyncDeps, onProgress) =>
      syncBeta(deps, { mode: 'reconcile', trades: false, onProgress }),
    trades: (deps: BetaSyncDeps, from) => pollBetaTrades(deps, { mode: 'backfill', from }),
  },
};

/** Every venue, alpha (the chain venue) first. */
export const VENUES: readonly Venue[] = [
  alpha,
  beta,
  listingVenue<GammaSyncSummary>('gamma', gammaConfig, (deps: GammaSyncDeps, o) => syncGamma(deps, o), {
    eventsWord: 'groups',
    more: (s) => ({ n: s.filled + s.reread, label: 'read by slug' }),
  }),
  listingVenue('delta', deltaConfig, (deps: DeltaSyncDeps, o) => syncDelta(deps, o)),
  listingVenue('epsilon', epsilonConfig, (deps: EpsilonSyncDeps, o) => syncEpsilon(deps, o)),
];

/** The config sections: each venue's, the REST venues' after their shared `venues` section. */
export const VENUE_CONFIG_SECTIONS: readonly ConfigSection[] = [
  ...VENUES.filter((v) => !v.rest).map((v) => v.config),
  venuesConfig,
  ...VENUES.filter((v) => v.rest).map((v) => v.config),
];

/** Each venue's jobs, by venue code and stream name (one job object each: the worker's and the schedules'). */
const STREAM_JOBS: ReadonlyMap<string, StreamJob> = new Map(
  VENUES.flatMap((v) => v.streams.map((s) => [`${v.code}.${s.name}`, venueStreamJob(v.code, s)] as const)),
);

/** The job of `venue`'s stream `stream` (`<venue>.<stream>`). */
export function venueJob(venue: string, stream: string): StreamJob {
  const job = STREAM_JOBS.get(`${venue}.${stream}`);
  if (!job) throw new Error(`No venue stream ${venue}.${stream}`);
  return job;
}

/** Every venue's jobs: its own, then its streams'. */
export const VENUE_JOBS: readonly VenueJob[] = VENUES.flatMap((v) => [
  ...(v.jobs ?? []),
  ...v.streams.map((s) => venueJob(v.code, s.name)),
]);

const SCHEDULES_OF: ReadonlyMap<string, readonly Schedule[]> = new Map(
  VENUES.map((v) => [
    v.code,
    [
      ...(v.schedules ?? []),
      ...v.streams.flatMap((s) => venueStreamSchedules(v.code, s, venueJob(v.code, s.name))),
    ],
  ]),
);

/** The schedules of one venue: its own, then its streams'. */
export const schedulesOf = (code: string): readonly Schedule[] => SCHEDULES_OF.get(code) ?? [];

/** Every venue's schedules. */
export const VENUE_SCHEDULES: readonly Schedule[] = VENUES.flatMap((v) => schedulesOf(v.code));

export const VENUE_AT_START: readonly { job: VenueJob; payload: unknown }[] = VENUES.flatMap(
  (v) => v.atStart ?? [],
);

/** The status sources of the venues' REST polls (ingest/sources.ts). */
export const VENUE_SOURCES: readonly RestSource[] = VENUES.map((v) => v.source);

/** The venues `pmdata backfill <venue>` lists now (the REST venues), in the list's order. */
export const BACKFILL_VENUES: readonly (Venue & { backfill: VenueBackfill })[] = VENUES.filter(
  (v): v is Venue & { backfill: VenueBackfill } => v.backfill !== undefined,
);

/** The lease of `venue`'s stream (the backfill waits for it). */
export const leaseOf = (venue: Venue, stream: string) => venueStreamLease(venue.code, stream);
