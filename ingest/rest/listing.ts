/**
 * What the REST venues' declarations (ingest/venues/<code>/index.ts) share beyond the runner:
 * - `venueClient(section, create)`: a venue's client over the HTTP client (ingest/http/client.ts) on its
 *   config section's `apiUrl`, with the shared VENUE_HTTP_TIMEOUT_MS;
 * - `listingSchedules(code)`: `<code>:markets-poll` (mode `poll`, every VENUE_MARKETS_POLL_S) and
 *   `<code>:reconcile` (mode `reconcile`, every VENUE_RECONCILE_S);
 * - `listingStream(code, s)`: the `markets` stream of a venue whose upstream lists its markets (gamma,
 *   delta, epsilon): those schedules, the lease `<code>:markets:lease` (a poll that finds it held is
 *   skipped, a reconciliation retries), the marks `markets` or `reconcile` at the run's observation time,
 *   and its markets' and events' written rows as the count that enqueues canonical ids. The venue gives
 *   its summary, read strategy, rows, tables and log line.
 */
import type { ConfigSection, VariableSpec } from '../../core/config.ts';
import { createHttpClient, type HttpClient } from '../http/client.ts';
import { venuesConfig } from './config.ts';
import { defineStream, type StreamDefinition, type StreamSchedule, type StreamSummary } from './runner.ts';

export type ListingMode = 'poll' | 'reconcile';

/** What a listing's summary must count: its markets' and events' written rows. */
export interface ListingCounts extends StreamSummary {
  written: number;
  events: { written: number };
}

/** A venue's client from its config section's `apiUrl` and the shared HTTP timeout. */
export function venueClient<C>(
  section: ConfigSection<{ apiUrl: VariableSpec<string> }>,
  create: (options: { http: HttpClient }) => C,
) {
  return (config: Parameters<typeof venuesConfig.of>[0]): C =>
    create({
      http: createHttpClient({
        baseUrl: section.of(config).apiUrl,
        timeoutMs: venuesConfig.of(config).httpTimeoutMs,
      }),
    });
}

/** The poll and reconcile schedules of a venue's `markets` stream. */
export const listingSchedules = (code: string): StreamSchedule<ListingMode>[] => [
  { id: `${code}:markets-poll`, mode: 'poll', everyMs: (c) => venuesConfig.of(c).marketsPollS * 1000 },
  { id: `${code}:reconcile`, mode: 'reconcile', everyMs: (c) => venuesConfig.of(c).reconcileS * 1000 },
];

/** The `markets` stream of a venue whose upstream lists its markets. */
export function listingStream<C, S extends ListingCounts, B>(
  code: string,
  s: Pick<
    StreamDefinition<C, 'markets', ListingMode, unknown, S, B>,
    'summary' | 'read' | 'rows' | 'tables' | 'write'
  > & {
    log: string;
  },
): StreamDefinition<C, 'markets', ListingMode, unknown, S, B> {
  return defineStream<C, 'markets', ListingMode, unknown, S, B>({
    name: 'markets',
    modes: ['poll', 'reconcile'],
    leases: () => [`${code}:markets:lease`],
    whenHeld: { reconcile: 'retry' },
    every: listingSchedules(code),
    summary: s.summary,
    read: s.read,
    rows: s.rows,
    tables: s.tables,
    write: s.write,
    marks: (ctx) => [{ stream: ctx.mode === 'poll' ? 'markets' : 'reconcile', time: ctx.observedAt() }],
    canonical: (summary) => summary.written + summary.events.written,
    log: { message: s.log },
  });
}
