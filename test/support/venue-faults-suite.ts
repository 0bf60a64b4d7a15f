/**
 * The faults every REST venue's sync must survive (sim/venues/faults.ts), one kind at a time: a 429's
 * Retry-After is waited out before the next request (the gap measured, the same page asked again), a 502
 * then a 503 on the listing are retried after a backoff (the same page three times), a hung request gives
 * up at the timeout (a short VENUE_HTTP_TIMEOUT_MS) and the page is asked again, a malformed record on the
 * listing's first page is quarantined by its id (once) while the batch goes on (the page read again, the
 * clean record stored); after each sync the tables equal the fault-free truth. A venue's faults file calls
 * `venueTransportFaults` inside its `describe` with its syncer (a client logging every request) and its
 * truth check, and keeps what is its own (other malformed records, paging faults, its envelope errors, all
 * faults at rates).
 */
import { expect, it } from 'vitest';
import type { Replicas } from '../../sim/venues/index.ts';

/** One request of a sync as the venue's logging client saw it. */
export interface LoggedRequest {
  path: string;
  /** The page asked for (`page`, or the cursor of a cursor-paged listing), null when none. */
  page: string | null;
  start: number;
  end: number;
  /** Null when the attempt got no answer (a timeout). */
  status: number | null;
}

export interface FaultsCase {
  venue: 'beta' | 'gamma' | 'delta' | 'epsilon';
  replicas: () => Replicas;
  /** A sync with a client logging every request (`timeoutMs`: the HTTP attempt's timeout). */
  syncer(o?: { timeoutMs?: number }): { log: LoggedRequest[]; run(): Promise<{ quarantined: number }> };
  /** The path of the listing the faults are put on. */
  listing: string;
  /** Whether the listing's first page is the sync's first request (default true). */
  listingFirst?: boolean;
  /** How the listing's first page is asked for (`page` of the log; default '1'). */
  firstPage?: string | null;
  /** The path the hang is put on (default the listing; its first request is the one that hangs). */
  hangPath?: string;
  /** The quarantined records, sorted by kind and id. */
  quarantined(): Promise<{ kind: string; record_id: string }[]>;
  /** The record a malformed fault on the listing's first page breaks (its kind and id). */
  malformed(): { kind: string; record_id: string };
  /** The shortest gap the 429 test accepts (ms; 1000 unless the venue's clock rounds it down by 1). */
  minGapMs?: number;
  /** The tables equal the fault-free truth, each record once. */
  expectTruth(): Promise<void>;
}

export function venueTransportFaults(c: FaultsCase): void {
  const page = c.firstPage === undefined ? '1' : c.firstPage;
  const first = { path: c.listing, page };
  const listingFirst = c.listingFirst ?? true;

  it('rate_limit: waits out Retry-After before the next request', async () => {
    c.replicas().faults.enqueue(c.venue, { kind: 'rate_limit', retryAfterS: 1, path: c.listing });
    const s = c.syncer();
    await s.run();
    const i = s.log.findIndex((l) => l.status === 429);
    expect(i).toBe(listingFirst ? 0 : s.log.findIndex((l) => l.path === c.listing));
    const gap = s.log[i + 1]!.start - s.log[i]!.end;
    expect(gap).toBeGreaterThanOrEqual(c.minGapMs ?? 1_000);
    expect(s.log[i]).toMatchObject(first);
    expect(s.log[i + 1]).toMatchObject({ ...first, status: 200 });
    await c.expectTruth();
  });

  it('server_error: retries after a backoff', async () => {
    c.replicas().faults.enqueue(
      c.venue,
      { kind: 'server_error', status: 502, path: c.listing },
      { kind: 'server_error', status: 503, path: c.listing },
    );
    const s = c.syncer();
    await s.run();
    if (listingFirst) expect(s.log[0]?.path).toBe(c.listing);
    const listing = s.log.filter((l) => l.path === c.listing);
    expect(listing.slice(0, 3).map((l) => [l.path, l.page, l.status])).toEqual([
      [c.listing, page, 502],
      [c.listing, page, 503],
      [c.listing, page, 200],
    ]);
    await c.expectTruth();
  });

  it('hang: gives up on the attempt at the timeout and retries', async () => {
    const path = c.hangPath ?? c.listing;
    c.replicas().faults.enqueue(c.venue, { kind: 'hang', path });
    const s = c.syncer({ timeoutMs: 300 });
    await s.run();
    const i = s.log.findIndex((l) => l.path === path);
    if (path === c.listing && listingFirst) expect(i).toBe(0);
    const hung = s.log[i]!;
    expect(hung).toMatchObject({ path, page, status: null });
    expect(hung.end - hung.start).toBeGreaterThanOrEqual(290);
    expect(hung.end - hung.start).toBeLessThan(2_000);
    expect(s.log[i + 1]).toMatchObject({ path, page, status: 200 });
    await c.expectTruth();
  });

  it('malformed: quarantines the record by its id, the listing goes on', async () => {
    c.replicas().faults.enqueue(c.venue, { kind: 'malformed', path: c.listing });
    const s = c.syncer();
    const summary = await s.run();
    expect(await c.quarantined()).toEqual([c.malformed()]);
    expect(summary.quarantined).toBe(1);
    // The first page was read again and the clean record stored.
    expect(s.log.filter((l) => l.path === c.listing && l.page === page)).toHaveLength(2);
    await c.expectTruth();
  });
}
