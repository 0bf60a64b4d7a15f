/**
 * Canonical keys and ids on rows built here (each venue's served shapes, sim/world/catalog.ts): the
 * rule (core/canonical-id.ts `servedKeys`) and the store (`assignCanonical` over chDB): the id format,
 * ids unchanged by re-ingestion and by a changed title (logged with both keys), a new listing of a
 * stored key taking the stored id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CANONICAL_ID_PATTERN,
  canonicalId,
  matchupTeams,
  type ServedMarket,
  servedKeys,
} from '../core/canonical-id.ts';
import type { Logger } from '../core/logger.ts';
import { assignCanonical } from '../ingest/canonical/assign.ts';
import type { StoredMarket } from '../ingest/canonical/served.ts';
import { createTestDeps, type TestDeps } from './support/deps.ts';

const END = Date.UTC(2026, 3, 4, 2, 30); // a game starting 23:30 the day before ends on the 4th
const stored = (market: string, event: string, served: Partial<ServedMarket>): StoredMarket => ({
  market,
  event,
  tokenIds: ['', ''],
  served: {
    title: '',
    outcomes: ['Yes', 'No'],
    endTime: END,
    eventTitle: '',
    groupLabel: null,
    ...served,
  },
});
const keysOf = (markets: StoredMarket[]) =>
  servedKeys(
    markets,
    (m) => m.served,
    (m) => m.event,
  );
const idsOf = (markets: StoredMarket[]) =>
  keysOf(markets).map((ks) => ks.map((k) => (k === null ? null : canonicalId(k))));

/** One NBA game as each venue serves it. */
const game = {
  alpha: [
    stored('500001', '30001', {
      title: 'Miami Heat vs. New York Knicks',
      outcomes: ['Miami Heat', 'New York Knicks'],
      eventTitle: 'Miami Heat vs. New York Knicks',
    }),
  ],
  beta: ['Miami Heat', 'New York Knicks'].map((team, i) =>
    stored(`KXNBAGAME-26APR03NYKMIA-${['MIA', 'NYK'][i]}`, 'KXNBAGAME-26APR03NYKMIA', {
      title: `Will ${team} win the New York Knicks vs Miami Heat game scheduled for Apr 3, 2026?`,
      eventTitle: 'New York Knicks at Miami Heat',
      groupLabel: team,
    }),
  ),
  gamma: [
    stored('miami-heat-vs-new-york-knicks-70001', '', {
      title: 'Miami Heat vs. New York Knicks',
      outcomes: ['Miami Heat', 'New York Knicks'],
    }),
  ],
};

describe('canonical key rule', () => {
  it('reads the two sides of a game from every venue form of its title', () => {
    expect(matchupTeams('Miami Heat vs. New York Knicks')).toEqual(['Miami Heat', 'New York Knicks']);
    expect(matchupTeams('New York Knicks at Miami Heat')).toEqual(['New York Knicks', 'Miami Heat']);
    expect(
      matchupTeams('Will Miami Heat win the New York Knicks vs Miami Heat game scheduled for Apr 3, 2026?'),
    ).toEqual(['New York Knicks', 'Miami Heat']);
    expect(matchupTeams('Will Bitcoin be above $95,000 on Apr 4?')).toBeNull();
  });

  it("gives a beta game's home YES the id of its away NO, and the other venues' same sides", () => {
    const [alpha] = idsOf(game.alpha);
    const [home, away] = idsOf(game.beta);
    const [gamma] = idsOf(game.gamma);
    expect(home![0]).toBe(away![1]);
    expect(away![0]).toBe(home![1]);
    expect(home![0]).not.toBe(away![0]);
    expect(home![0]).toBe(alpha![0]);
    expect(away![0]).toBe(alpha![1]);
    expect(gamma).toEqual(alpha);
    for (const id of [...alpha!, ...home!, ...away!]) expect(id).toMatch(CANONICAL_ID_PATTERN);
  });

  it('keys a three-way game: Yes = the label, No = "not <label>", the same for a group of the event on any venue', () => {
    const labels = ['Arsenal', 'Draw', 'Chelsea'];
    const gammaGroup = labels.map((l, i) =>
      stored(`g${i}`, 'group-1', { title: l, eventTitle: 'Arsenal vs. Chelsea', groupLabel: l }),
    );
    const betaEvent = labels.map((l, i) =>
      stored(`b${i}`, 'KXEPLGAME-1', {
        title:
          l === 'Draw'
            ? 'Will Arsenal vs. Chelsea end in a draw?'
            : `Will ${l} win the Chelsea vs Arsenal game?`,
        eventTitle: 'Chelsea at Arsenal',
        groupLabel: l,
      }),
    );
    const g = keysOf(gammaGroup);
    expect(keysOf(betaEvent)).toEqual(g);
    expect(g[1]).toEqual([
      'sports||arsenal|chelsea|2026-04-04|draw',
      'sports||arsenal|chelsea|2026-04-04|not draw',
    ]);
  });

  it('keys alternatives of a non-game event by its title; two alternatives: the No is the other one', () => {
    const three = ['Hold', 'Cut 25bp', 'Hike 25bp'].map((l, i) =>
      stored(`f${i}`, 'fed', {
        title: `Will the Fed decide: ${l}?`,
        eventTitle: 'Fed decision in April',
        groupLabel: l,
      }),
    );
    expect(keysOf(three)[0]).toEqual([
      'question|fed decision in april|2026-04-04|hold',
      'question|fed decision in april|2026-04-04|not hold',
    ]);
    const two = ['Ada', 'Bo'].map((l, i) =>
      stored(`e${i}`, 'ev', {
        title: `Will ${l} win?`,
        eventTitle: 'Ruritania election winner',
        groupLabel: l,
      }),
    );
    const single = stored('s', '', { title: 'Ruritania election winner?', outcomes: ['Ada', 'Bo'] });
    const k = keysOf([...two, single]);
    expect(k[0]).toEqual([k[2]![0], k[2]![1]]);
    expect(k[1]).toEqual([k[2]![1], k[2]![0]]);
  });

  it('keys a question by its normalized title, end day and label; no end time, no key', () => {
    const a = stored('1', '', { title: 'Will Bitcoin be above $95,000 on Apr 4?' });
    const b = stored('2', '', { title: 'will bitcoin be above 95 000 on apr 4', endTime: END + 3_600_000 });
    const none = stored('3', '', { title: 'Will it rain?', endTime: null });
    const k = keysOf([a, b, none]);
    expect(k[0]).toEqual(k[1]);
    expect(k[0]![0]).toBe('question|will bitcoin be above 95 000 on apr 4|2026-04-04|yes');
    expect(k[2]).toEqual([null, null]);
  });

  it('numbers two games of the same teams on one day by end time', () => {
    const early = stored('m1', '', { title: 'A vs. B', outcomes: ['A', 'B'], endTime: END - 7_200_000 });
    const late = stored('m2', '', { title: 'B vs. A', outcomes: ['B', 'A'], endTime: END });
    const k = keysOf([late, early]);
    expect(k[1]![0]).toBe('sports||a|b|2026-04-04 game 1|a');
    expect(k[0]![1]).toBe('sports||a|b|2026-04-04 game 2|a');
  });
});

describe('assignCanonical', () => {
  let deps: TestDeps;
  beforeAll(async () => {
    deps = await createTestDeps('canonical-rules');
  });
  afterAll(async () => {
    await deps?.close();
  });

  const read = async (venue: string) =>
    new Map(
      (
        await deps.clickhouse.query<{ market: string; outcome_index: number; id: string; key: string }>(
          'test.canonical',
          'SELECT market, outcome_index, id, key FROM canonical_outcomes FINAL WHERE venue = {venue:String}',
          { venue },
        )
      ).map((r) => [`${r.market}#${r.outcome_index}`, { id: r.id, key: r.key }]),
    );
  const withWarnings = () => {
    const warnings: Record<string, unknown>[] = [];
    const log = Object.create(deps.log) as Logger;
    (log as { warn: unknown }).warn = (o: Record<string, unknown>) => {
      warnings.push(o);
    };
    return { log, warnings };
  };

  it('stores one row per outcome, ids of the form, unchanged and nothing written by a re-run', async () => {
    const first = await assignCanonical(deps, 'beta', { markets: game.beta, now: () => 1_000 });
    expect(first).toMatchObject({ markets: 2, outcomes: 4, written: 4, created: 4, changedKeys: 0 });
    const rows = await read('beta');
    expect(rows.size).toBe(4);
    for (const r of rows.values()) expect(r.id).toMatch(CANONICAL_ID_PATTERN);
    const home = game.beta[0]!.market;
    const away = game.beta[1]!.market;
    expect(rows.get(`${home}#0`)!.id).toBe(rows.get(`${away}#1`)!.id);

    const again = await assignCanonical(deps, 'beta', { markets: game.beta, now: () => 2_000 });
    expect(again).toMatchObject({ written: 0, created: 0, changedKeys: 0 });
    expect(await read('beta')).toEqual(rows);
  });

  it('keeps the id of an outcome whose key changed, logging both keys once', async () => {
    const before = await read('beta');
    const renamed = game.beta.map((m) => ({
      ...m,
      served: { ...m.served, endTime: END + 86_400_000 },
    }));
    const { log, warnings } = withWarnings();
    const s = await assignCanonical({ ...deps, log }, 'beta', { markets: renamed, now: () => 3_000 });
    expect(s).toMatchObject({ changedKeys: 4, created: 0, written: 4 });
    expect(warnings).toHaveLength(4);
    const w = warnings.find((x) => x.market === game.beta[0]!.market && x.outcomeIndex === 0)!;
    expect(w.oldKey).toBe(before.get(`${game.beta[0]!.market}#0`)!.key);
    expect(w.newKey).toBe('sports||miami heat|new york knicks|2026-04-05|miami heat');
    expect(w.id).toBe(before.get(`${game.beta[0]!.market}#0`)!.id);
    const after = await read('beta');
    for (const [slot, r] of before) expect(after.get(slot)!.id).toBe(r.id);

    // Logged once: the next run finds the new key stored.
    const quiet = withWarnings();
    const next = await assignCanonical({ ...deps, log: quiet.log }, 'beta', {
      markets: renamed,
      now: () => 4_000,
    });
    expect(next).toMatchObject({ changedKeys: 0, written: 0 });
    expect(quiet.warnings).toHaveLength(0);
  });

  it("gives a new listing of a stored key the stored outcome's id, on another venue too", async () => {
    const beta = await read('beta');
    const gamma = [
      stored('miami-knicks', '', {
        title: 'Miami Heat vs. New York Knicks',
        outcomes: ['Miami Heat', 'New York Knicks'],
        endTime: END + 86_400_000,
      }),
    ];
    await assignCanonical(deps, 'gamma', { markets: gamma, now: () => 5_000 });
    const g = await read('gamma');
    // The beta outcomes kept their first ids under the moved key; gamma takes them.
    expect(g.get('miami-knicks#0')!.id).toBe(beta.get(`${game.beta[0]!.market}#0`)!.id);
    expect(g.get('miami-knicks#1')!.id).toBe(beta.get(`${game.beta[1]!.market}#0`)!.id);
  });
});
