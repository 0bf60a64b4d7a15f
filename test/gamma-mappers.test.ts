/**
 * Venue gamma's record checks and row mapping on hand-written records in the upstream's form
 * (gamma-api.yaml, the replica's answers): percents → 0–1, base units → USD (the collateral's decimals),
 * open interest only for pool markets, the status rule, a group's markets carrying the group, the
 * fields the file's `Market` schema documents but the replica does not serve (payout numerators as
 * strings, the resolution transaction, the image), and what fails a check with which id.
 */
import { describe, expect, it } from 'vitest';
import { checkEntry } from '../ingest/venues/gamma/client.ts';
import { entryRows, marketRow, statusOf } from '../ingest/venues/gamma/mappers.ts';
import { CHECKERS, type MarketPayload } from '../ingest/venues/gamma/payloads.ts';

const clob = {
  id: 7495,
  address: null,
  conditionId: '0x812f578437dc536def1412e4e593ef310884262c22868b30c1e58582e5f3e9bf',
  title: 'Lakers',
  description: 'Resolves YES if ...',
  collateralToken: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6, symbol: 'USDC' },
  prices: [42.8, 57.2],
  categories: ['Sports', 'NBA'],
  tags: ['Basketball'],
  status: 'FUNDED',
  expired: false,
  expirationTimestamp: 1756728000000,
  volume: '164109293',
  openInterest: '48310707',
  liquidity: '50000000',
  tradeType: 'clob',
  marketType: 'single',
  slug: 'will-the-lakers-win',
  createdAt: '2025-09-01T10:00:00.000Z',
  updatedAt: '2025-09-01T11:30:31.000Z',
  winningOutcomeIndex: null,
  outcomeTokens: ['Yes', 'No'],
  positionIds: ['111', '222'],
  venue: { exchange: '0x05c748E2f4DcDe0ec9Fa8DDc40DE6b867f923fa5', adapter: '0x5a38' },
};

const amm = {
  ...clob,
  slug: 'doge-above-0-21652',
  title: '$DOGE above $0.21652 on Sep 1, 12:00 UTC?',
  address: '0x76d3e2098Be66Aa7E15138F467390f0Eb7349B9b',
  tradeType: 'amm',
  positionIds: undefined,
  venue: undefined,
};

const parse = (raw: unknown) => {
  const r = CHECKERS.market.check(raw);
  if (!r.ok) throw new Error(r.invalid.reason);
  return r.value as MarketPayload;
};

describe('gamma mappers', () => {
  it('maps an order-book market: prices 0–1, USD amounts, no open interest, the exchange', () => {
    const row = marketRow(parse(clob), null);
    expect(row).toMatchObject({
      slug: 'will-the-lakers-win',
      status: 'open',
      prices: [0.428, 0.572],
      volume_usd: 164.109293,
      liquidity_usd: 50,
      open_interest_usd: null,
      token_ids: ['111', '222'],
      trade_type: 'clob',
      exchange_address: '0x05c748E2f4DcDe0ec9Fa8DDc40DE6b867f923fa5',
      market_address: null,
      market_id: 7495,
      category: 'Sports',
      categories: ['Sports', 'NBA'],
      end_time: 1756728000000,
      expiration_time: 1756728000000,
      created_time: Date.parse('2025-09-01T10:00:00.000Z'),
      updated_time: Date.parse('2025-09-01T11:30:31.000Z'),
      event_key: '',
      group_label: null,
      winning_outcome: null,
      payout_numerators: [],
      resolution_block: null,
      resolution_tx: null,
      image_url: '',
      collateral_decimals: 6,
    });
  });

  it('maps a pool market: open interest in USD, the pool address, no token ids', () => {
    const row = marketRow(parse(amm), null);
    expect(row).toMatchObject({
      open_interest_usd: 48.310707,
      market_address: '0x76d3e2098Be66Aa7E15138F467390f0Eb7349B9b',
      exchange_address: null,
      token_ids: ['', ''],
      words: ['doge', 'above', '0', '21652', 'on', 'sep', '1', '12', '00', 'utc'],
    });
  });

  it('uses the collateral decimals and the documented fields when served', () => {
    const row = marketRow(
      parse({
        ...clob,
        collateralToken: { address: '0xabc', decimals: 18, symbol: 'WETH' },
        volume: '2500000000000000000',
        status: 'RESOLVED',
        expired: true,
        prices: [100, 0],
        winningOutcomeIndex: 0,
        payout_numerators: ['1', '0'],
        resolutionTxHash: '0xfeed',
        image_url: 'https://img/x.png',
      }),
      null,
    );
    expect(row).toMatchObject({
      volume_usd: 2.5,
      collateral_decimals: 18,
      status: 'resolved',
      prices: [1, 0],
      winning_outcome: 0,
      payout_numerators: [1, 0],
      resolution_tx: '0xfeed',
      image_url: 'https://img/x.png',
    });
    // Without served numerators, a resolved market's come from its winner.
    expect(
      marketRow(parse({ ...clob, status: 'RESOLVED', winningOutcomeIndex: 1 }), null).payout_numerators,
    ).toEqual([0, 1]);
  });

  it('reads the status: resolved, closed when expired or locked, else open', () => {
    expect(statusOf({ status: 'RESOLVED', expired: true })).toBe('resolved');
    expect(statusOf({ status: 'FUNDED', expired: true })).toBe('closed');
    expect(statusOf({ status: 'LOCKED', expired: false })).toBe('closed');
    expect(statusOf({ status: 'FUNDED', expired: false })).toBe('open');
  });

  it('maps a group: each market under the group, the group as an event', () => {
    const group = {
      id: 10000037,
      slug: 'nba-champion',
      title: 'NBA Champion 2026',
      description: '',
      collateralToken: clob.collateralToken,
      categories: ['Sports'],
      tags: [],
      status: 'FUNDED',
      expired: false,
      expirationTimestamp: 1756728000000,
      volume: '3000000',
      openInterest: '0',
      liquidity: '1000000',
      tradeType: 'clob',
      marketType: 'group',
      createdAt: '2025-08-01T00:00:00.000Z',
      markets: [clob, { ...clob, slug: 'will-the-celtics-win', title: 'Celtics', venue: undefined }],
      venue: clob.venue,
    };
    const c = checkEntry(group);
    expect(c.clean).toBe(true);
    const rows = entryRows(c.entry!);
    expect(
      rows.markets.map((m) => [m.slug, m.event_key, m.event_title, m.group_label, m.exchange_address]),
    ).toEqual([
      ['will-the-lakers-win', 'nba-champion', 'NBA Champion 2026', 'Lakers', clob.venue.exchange],
      ['will-the-celtics-win', 'nba-champion', 'NBA Champion 2026', 'Celtics', clob.venue.exchange],
    ]);
    expect(rows.event).toMatchObject({
      slug: 'nba-champion',
      id: 10000037,
      status: 'open',
      market_slugs: ['will-the-lakers-win', 'will-the-celtics-win'],
      volume_usd: 3,
      liquidity_usd: 1,
    });
  });

  it('fails a record of the wrong type by its slug (or its id when the slug is the bad field)', () => {
    const bad = checkEntry({ ...clob, conditionId: 404 });
    expect(bad.entry).toBeNull();
    expect(bad.invalid).toMatchObject([{ kind: 'market', recordId: 'will-the-lakers-win' }]);
    expect(checkEntry({ ...clob, prices: [142, 0] }).invalid).toHaveLength(1);
    expect(checkEntry({ ...clob, volume: '12.5' }).invalid).toHaveLength(1);
    const badSlug = checkEntry({
      marketType: 'group',
      id: 77,
      slug: 404,
      title: 'x',
      status: 'FUNDED',
      markets: [],
    });
    expect(badSlug.invalid).toMatchObject([{ kind: 'group', recordId: '77' }]);
    // A group whose one market fails keeps the others; the failure is reported.
    const partial = checkEntry({
      marketType: 'group',
      slug: 'g',
      title: 'G',
      status: 'FUNDED',
      markets: [clob, { ...amm, address: 404 }],
    });
    expect(partial.clean).toBe(false);
    expect(partial.entry?.kind === 'group' && partial.entry.markets.map((m) => m.slug)).toEqual([clob.slug]);
    expect(partial.entry?.kind === 'group' && partial.entry.marketSlugs).toEqual([clob.slug, amm.slug]);
    expect(partial.invalid).toMatchObject([{ kind: 'market', recordId: amm.slug }]);
  });
});
