/**
 * THE list of venues, `VENUES`: one unit per venue, and the only file outside a venue's own folders that
 * names venue codes (test/import-direction.test.ts). A unit holds the venue's config section, the status
 * source of its REST polls, its streams' jobs and schedules (a REST venue's from its definition for the
 * stream runner, ingest/venues/<code>/index.ts, by jobs/processors/venue-streams.ts), what
 * `pmdata backfill <venue>` runs, and for the chain venue alpha its chain and catalog/book jobs.
 * Derived from the list, never written by hand elsewhere: the config sections (jobs/config.ts), the jobs
 * (jobs/registry.ts) and schedules (jobs/schedules.ts), the status sources (ingest/sources.ts, through
 * jobs/ops-sampler.ts), the canonical job's venues, the backfill dispatch (jobs/commands/backfill.ts) and
 * the demo's venue steps (jobs/commands/demo.ts). `deriveVenues(venues)` derives them from a given list
 * (a test's temporary one); the module's constants are it applied to `VENUES`. A new venue is one line
 * here (docs/contributing.md).
 */
import type { ConfigSection } from '../core/config.ts';
import { venuesConfig } from '../ingest/rest/config.ts';
import type { StreamSummary, VenueDefinition } from '../ingest/rest/runner.ts';
import type { RestSource } from '../ingest/sources.ts';
import { alphaConfig } from '../ingest/venues/alpha/config.ts';
import { beta } from '../ingest/venues/beta/index.ts';
import { delta } from '../ingest/venues/delta/index.ts';
import { epsilon } from '../ingest/venues/epsilon/index.ts';
import { type GammaSyncSummary, gamma } from '../ingest/venues/gamma/index.ts';
import { type AnyJob, type Schedule, schedule, type Work, work } from './define.ts';
import { alphaBackfillJob } from './processors/alpha-backfill.ts';
import { alphaBookJob, BOOK_SCHEDULES } from './processors/alpha-book.ts';
import { alphaCatalogJob, CATALOG_SCHEDULES } from './processors/alpha-catalog.ts';
import { alphaFollowJob } from './processors/alpha-follow.ts';
import { venueFeedJobs } from './processors/venue-feeds.ts';
import { type StreamJobs, venueStreamJobs } from './processors/venue-streams.ts';
import type { ProductRegistry } from './products.ts';

export interface ListingSummary extends StreamSummary {
  read: number;
  written: number;
  events: { read: number; written: number };
}

export interface SeriesListingSummary extends ListingSummary {
  series: { read: number; written: number };
}

export interface TradesBackfillSummary {
  read: number;
  written: number;
  quarantined: number;
  requests: number;
}

/** What `pmdata backfill <venue>` runs (jobs/commands/backfill-listing.ts, backfill-trades.ts). */
export type VenueBackfill =
  /** A full listing now (the `markets` stream's `reconcile`); no trades stream: `--trades` is refused. */
  | {
      kind: 'listing';
      venue: VenueDefinition;
      /** What the venue calls its events (default `events`). */
      eventsWord?: string;
      /** A further figure of the summary, after the events' (`<n> <label>`). */
      more?(summary: ListingSummary): { n: number; label: string };
    }
  /**
   * A full listing with series (the `markets` stream's `reconcile` with `{trades: false}`), then with
   * `--trades` the `trades` stream's `backfill` down to `--from`.
   */
  | { kind: 'series-trades'; venue: VenueDefinition };

/** One venue. */
export interface Venue {
  code: string;
  /** Its config section (ingest/venues/<code>/config.ts). */
  config: ConfigSection;
  /** A REST venue (the shared `venues` section applies; `pmdata backfill <venue>` lists it). */
  rest: boolean;
  /** The status source of its REST polls: their watermarks' source (ingest/sources.ts). */
  source: RestSource;
  /** The status sources of its feeds (ingest/feed.ts; kind `feed`). */
  feeds?: readonly RestSource[];
  /** Its streams' jobs and schedules, by stream name. */
  streams: readonly (StreamJobs<unknown> & { name: string })[];
  /** Jobs and schedules of its own beside the streams' (alpha's chain, catalog and book). */
  jobs?: readonly AnyJob[];
  schedules?: readonly Schedule[];
  /** Work enqueued at each scheduler start. */
  atStart?: readonly Work[];
  backfill?: VenueBackfill;
}

/**
 * A REST venue declared for the stream runner (ingest/venues/<code>/index.ts): its streams' jobs, whose
 * committed watermarks enqueue the products that read the venue (`dependents`: analytics/products.ts's).
 */
export function restVenue(
  def: VenueDefinition,
  backfill: VenueBackfill = { kind: 'listing', venue: def },
  dependents?: ProductRegistry['enqueueDependents'],
): Venue {
  // Its feeds (a WebSocket read without end each): a job, its schedule and a status source each.
  const feeds = (def.feeds ?? []).map((f) => ({ feed: f, ...venueFeedJobs(def, f) }));
  return {
    code: def.code,
    config: def.config,
    rest: true,
    source: { source: def.source },
    streams: def.streams.map((s) => ({ name: s.name, ...venueStreamJobs(def, s.name, dependents) })),
    ...(feeds.length > 0
      ? {
          jobs: feeds.map((f) => f.job as AnyJob),
          schedules: feeds.flatMap((f) => f.schedules),
          feeds: feeds.map((f) => ({ source: f.feed.source, kind: 'feed' as const })),
        }
      : {}),
    backfill,
  };
}

const alpha: Venue = {
  code: 'alpha',
  config: alphaConfig,
  rest: false,
  source: { source: 'alpha-catalog' },
  streams: [],
  jobs: [alphaBackfillJob, alphaFollowJob, alphaCatalogJob, alphaBookJob],
  schedules: [
    // The live follower runs as a job of bounded length that is re-enqueued: a crashed worker's follower
    // is picked up by another within one interval, and a Redis lease keeps it to one at a time.
    schedule('alpha:follow', alphaFollowJob, () => 30_000, { maxRunMs: 300_000 }),
    ...CATALOG_SCHEDULES,
    ...BOOK_SCHEDULES,
  ],
  atStart: [work(alphaCatalogJob, { mode: 'full' })],
};

/** Every venue, alpha (the chain venue) first. */
export const VENUES: readonly Venue[] = [
  alpha,
  restVenue(beta, { kind: 'series-trades', venue: beta }),
  restVenue(gamma, {
    kind: 'listing',
    venue: gamma,
    eventsWord: 'groups',
    more: (s: GammaSyncSummary) => ({ n: s.filled + s.reread, label: 'read by slug' }),
  }),
  restVenue(delta),
  restVenue(epsilon),
];

/** What derives from a list of venues (the module's constants are it applied to `VENUES`). */
export function deriveVenues(venues: readonly Venue[]) {
  const schedulesOf = new Map(
    venues.map((v) => [v.code, [...(v.schedules ?? []), ...v.streams.flatMap((s) => s.schedules)]]),
  );
  return {
    /** The config sections: each venue's, the REST venues' after their shared `venues` section. */
    configSections: [
      ...venues.filter((v) => !v.rest).map((v) => v.config),
      venuesConfig,
      ...venues.filter((v) => v.rest).map((v) => v.config),
    ] as readonly ConfigSection[],
    /** Every venue's jobs: its own, then its streams'. */
    jobs: venues.flatMap((v) => [
      ...(v.jobs ?? []),
      ...v.streams.flatMap((s) => s.jobs),
    ]) as readonly AnyJob[],
    /** The schedules of one venue: its own, then its streams'. */
    schedulesOf: (code: string): readonly Schedule[] => schedulesOf.get(code) ?? [],
    /** Every venue's schedules. */
    schedules: venues.flatMap((v) => schedulesOf.get(v.code) ?? []) as readonly Schedule[],
    atStart: venues.flatMap((v) => v.atStart ?? []) as readonly Work[],
    /** The status sources of the venues' REST polls (ingest/sources.ts). */
    sources: venues.flatMap((v) => [v.source, ...(v.feeds ?? [])]) as readonly RestSource[],
    /** The venues `pmdata backfill <venue>` lists (the REST venues), in the list's order. */
    backfill: venues.filter(
      (v): v is Venue & { backfill: VenueBackfill } => v.backfill !== undefined,
    ) as readonly (Venue & { backfill: VenueBackfill })[],
  };
}

const DERIVED = deriveVenues(VENUES);

/** The config sections: each venue's, the REST venues' after their shared `venues` section. */
export const VENUE_CONFIG_SECTIONS: readonly ConfigSection[] = DERIVED.configSections;

/** The job of `venue`'s stream `stream` (`<venue>.<stream>`). */
export function venueJob(venue: string, stream: string): StreamJobs<unknown>['job'] {
  const s = VENUES.find((v) => v.code === venue)?.streams.find((x) => x.name === stream);
  if (!s) throw new Error(`No venue stream ${venue}.${stream}`);
  return s.job;
}

/** Every venue's jobs: its own, then its streams'. */
export const VENUE_JOBS: readonly AnyJob[] = DERIVED.jobs;

/** The schedules of one venue: its own, then its streams'. */
export const schedulesOf = DERIVED.schedulesOf;

/** Every venue's schedules. */
export const VENUE_SCHEDULES: readonly Schedule[] = DERIVED.schedules;

export const VENUE_AT_START: readonly Work[] = DERIVED.atStart;

/** The status sources of the venues' REST polls (ingest/sources.ts). */
export const VENUE_SOURCES: readonly RestSource[] = DERIVED.sources;

/** The venues `pmdata backfill <venue>` lists now (the REST venues), in the list's order. */
export const BACKFILL_VENUES: readonly (Venue & { backfill: VenueBackfill })[] = DERIVED.backfill;
