/**
 * The simulated world's catalog: what exists (topics, venues' events, markets, series, tags, categories)
 * and how each market is planned to resolve. Pure and deterministic: the same options give a deep-equal
 * catalog. It says nothing about trading; sim/world/state.ts holds what changes over time.
 *
 * Model: a *topic* is a real-world question (a game, a price threshold, an election). Each venue lists some
 * topics as one *event* holding one or more *binary markets* (two outcomes each). Multi-outcome topics
 * (3+ alternatives) become one Yes/No market per alternative (alpha: a neg-risk event). The topic and its
 * ground truth (winner, time) are shared, so the same real-world outcome can be matched across venues.
 */
import type { Address, Hex } from 'viem';
import { toHex } from 'viem';
import {
  CANDIDATE_NAMES,
  CATEGORIES,
  COUNTRIES,
  CPI_OUTCOMES,
  FED_OUTCOMES,
  LEAGUES,
  type LeagueSpec,
  MONTHS,
  TAG_TREE,
  TECH_EVENTS,
} from './catalog-names.ts';
import {
  ALPHA_ADDRESSES,
  binaryPositionIds,
  NEG_RISK_COLLATERAL,
  NEG_RISK_ORACLE,
  negRiskMarketId,
  negRiskQuestionId,
  STANDARD_COLLATERAL,
  STANDARD_ORACLE,
  umaQuestionId,
} from './ids.ts';
import { createRng, type Rng } from './rng.ts';

export const VENUES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const;
export type VenueCode = (typeof VENUES)[number];
export type CatalogSize = 'small' | 'medium' | 'large';
/** 'one_off' only for beta series that group non-recurring events (every beta event has a series). */
export type Recurrence = 'daily' | 'weekly' | 'monthly' | 'one_off';

export interface GenerateCatalogOptions {
  seed: string | number;
  size: CatalogSize;
  /** World start, Unix ms (UTC). Trading and all planned resolutions happen at or after it. */
  startTime: number;
  /** Days of world time (default the size's: small 3, medium 7, large 14); the same topics spread over them. */
  horizonDays?: number;
}

export type TopicKind =
  | 'sports_game'
  | 'crypto_threshold'
  | 'jobless_claims'
  | 'tech_milestone'
  | 'fed_decision'
  | 'cpi_range'
  | 'election';

export interface Team {
  abbreviation: string;
  name: string;
}

export interface SportsInfo {
  league: string;
  sport: string;
  homeTeam: Team;
  awayTeam: Team;
  /** Game date, YYYY-MM-DD (UTC). */
  gameDate: string;
  /** Unix ms. */
  gameStartTime: number;
}

/** A real-world question and its ground truth, shared by every venue that lists it. */
export interface Topic {
  id: string;
  kind: TopicKind;
  category: string;
  /** Tag slugs, most specific first. */
  tags: string[];
  title: string;
  /** Real-world outcome labels; Yes/No questions are ['Yes', 'No']. */
  outcomes: string[];
  /** Starting probability of each outcome (sums to 1). */
  probabilities: number[];
  /** Unix ms: trading opens (before the world start) and closes. */
  openTime: number;
  closeTime: number;
  /** Date the question is about, YYYY-MM-DD. */
  resolutionDate: string;
  /** Planned resolution: index into `outcomes`, and when; null = stays unresolved in the simulated horizon. */
  winningIndex: number | null;
  resolveTime: number | null;
  /** Topic-level series key (e.g. 'NBA', 'btc-daily'); null when not recurring. */
  seriesKey: string | null;
  sports: SportsInfo | null;
}

export interface PlannedResolution {
  /** Winning outcome index of this binary market (0 = first outcome / Yes). */
  winningIndex: number;
  /** Unix ms of the final resolution. */
  time: number;
  /** The first proposal is disputed (alpha: UMA dispute then reset) before the final resolution. */
  disputed: boolean;
}

/** alpha-only on-chain identity of a market (see sim/world/ids.ts). */
export interface AlphaChainInfo {
  /** The question id in the CTF condition (neg-risk: marketId + index). */
  questionId: Hex;
  conditionId: Hex;
  /** The address passed as oracle to prepareCondition (UMA adapter v3, or the NegRiskAdapter). */
  oracle: Address;
  collateral: Address;
  /** Data given to the UMA adapter's initialize (before it appends the creator). */
  ancillaryData: Hex;
  /** Who calls initialize on the UMA adapter (standard: the market creator; neg-risk: the NegRiskOperator). */
  umaInitializer: Address;
  /** The UMA adapter that resolves it (v3 for standard, the neg-risk UMA adapter for neg-risk). */
  umaAdapter: Address;
  /** The UMA questionID (standard: equals questionId; neg-risk: the operator's requestId). */
  umaQuestionId: Hex;
  negRisk: boolean;
  negRiskMarketId: Hex | null;
  negRiskRequestId: Hex | null;
  negRiskIndex: number | null;
  negRiskFeeBips: number | null;
}

export interface CatalogMarket {
  venue: VenueCode;
  /**
   * The venue's natural market key: alpha conditionId, beta ticker, gamma slug,
   * delta marketId (decimal string), epsilon id. `state.recordTrade({ marketKey })` takes it.
   */
  key: string;
  /** The venue's market id (alpha numeric id, beta ticker, gamma numeric id, delta marketId, epsilon id). */
  id: string;
  slug: string;
  eventKey: string;
  seriesKey: string | null;
  topicId: string;
  /** For a market that is one alternative of a multi-outcome topic: its index in topic.outcomes. */
  topicOutcomeIndex: number | null;
  question: string;
  description: string;
  /** Two labels: ['Yes','No'] or the two sides (e.g. team names). */
  outcomes: [string, string];
  /** Token ids of the two outcomes, decimal strings (beta: synthetic `${ticker}:yes`/`:no`). */
  tokenIds: [string, string];
  /** Title of this alternative inside a multi-market event, else null. */
  groupItemTitle: string | null;
  category: string;
  tags: string[];
  createdAt: number;
  startTime: number;
  endTime: number;
  sports: SportsInfo | null;
  /** Starting probability of outcome 0. */
  initialPrice: number;
  tickSize: number;
  minOrderSize: number;
  /** gamma: 'amm' markets trade against a pool, 'clob' against a book; every other venue is 'clob'. */
  kind: 'clob' | 'amm';
  /** gamma AMM markets: the pool (FixedProductMarketMaker) address. */
  ammAddress: Address | null;
  resolution: PlannedResolution | null;
  alpha: AlphaChainInfo | null;
  /** gamma, delta, epsilon: the question and condition ids on the venue's own chain (null for alpha and beta). */
  chain: { questionId: Hex; conditionId: Hex } | null;
}

export interface CatalogEvent {
  venue: VenueCode;
  key: string;
  id: string;
  slug: string;
  /** beta event_ticker, alpha ticker (= slug), others = slug. */
  ticker: string;
  title: string;
  description: string;
  category: string;
  tags: string[];
  seriesKey: string | null;
  topicId: string;
  marketKeys: string[];
  /** Markets are mutually exclusive alternatives of one question. */
  mutuallyExclusive: boolean;
  /** alpha neg-risk event. */
  negRisk: boolean;
  negRiskMarketId: Hex | null;
  negRiskFeeBips: number | null;
  createdAt: number;
  startTime: number;
  endTime: number;
  sports: SportsInfo | null;
}

export interface CatalogSeries {
  venue: VenueCode;
  key: string;
  id: string;
  /** beta series ticker; others: slug uppercased. */
  ticker: string;
  slug: string;
  title: string;
  recurrence: Recurrence;
  category: string;
  tags: string[];
  eventKeys: string[];
  createdAt: number;
}

export interface CatalogTag {
  venue: VenueCode;
  id: string;
  slug: string;
  label: string;
  parentSlug: string | null;
  createdAt: number;
}

export interface CatalogCategory {
  venue: VenueCode;
  id: string;
  slug: string;
  label: string;
  parentSlug: string | null;
}

export interface VenueCatalog {
  venue: VenueCode;
  events: CatalogEvent[];
  markets: CatalogMarket[];
  series: CatalogSeries[];
  tags: CatalogTag[];
  categories: CatalogCategory[];
}

export interface Catalog {
  seed: string;
  size: CatalogSize;
  startTime: number;
  /** End of the simulated horizon (Unix ms): planned resolutions fall before it. */
  endTime: number;
  topics: Topic[];
  venues: Record<VenueCode, VenueCatalog>;
  /** Address that initializes standard alpha questions on the UMA adapter. */
  alphaMarketCreator: Address;
}

interface SizeSpec {
  horizonDays: number;
  sportsGames: number;
  crypto: number;
  jobless: number;
  tech: number;
  fed: number;
  cpi: number;
  elections: number;
  /** Chance a non-alpha venue lists a topic. */
  coverage: Record<Exclude<VenueCode, 'alpha'>, number>;
}

const SIZES: Record<CatalogSize, SizeSpec> = {
  // ≈ 20 alpha markets.
  small: {
    horizonDays: 3,
    sportsGames: 6,
    crypto: 3,
    jobless: 1,
    tech: 2,
    fed: 1,
    cpi: 0,
    elections: 1,
    coverage: { beta: 0.8, gamma: 0.6, delta: 0.5, epsilon: 0.5 },
  },
  // ≈ 200 alpha markets.
  medium: {
    horizonDays: 7,
    sportsGames: 60,
    crypto: 30,
    jobless: 6,
    tech: 16,
    fed: 4,
    cpi: 4,
    elections: 6,
    coverage: { beta: 0.7, gamma: 0.5, delta: 0.4, epsilon: 0.4 },
  },
  // ≈ 2,000 alpha markets.
  large: {
    horizonDays: 14,
    sportsGames: 600,
    crypto: 300,
    jobless: 40,
    tech: 160,
    fed: 40,
    cpi: 40,
    elections: 70,
    coverage: { beta: 0.6, gamma: 0.4, delta: 0.3, epsilon: 0.3 },
  },
};

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A fixed made-up address standing for alpha's market creator (it initializes standard UMA questions). */
export const ALPHA_MARKET_CREATOR: Address = '0x91430CaD2d3975766499717fA0D66A78D814E5c5';
/** UMA liveness: a proposal settles two hours after it is made. */
const UMA_LIVENESS_MS = 2 * HOUR;

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/%/g, 'pct')
    .replace(/\$/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function monthDay(ms: number): string {
  const d = new Date(ms);
  return `${(MONTHS[d.getUTCMonth()] as string).slice(0, 3)} ${d.getUTCDate()}`;
}

/** beta-style date code: 26APR04. */
function dateCode(ms: number): string {
  const d = new Date(ms);
  const yy = String(d.getUTCFullYear() % 100).padStart(2, '0');
  const mon = (MONTHS[d.getUTCMonth()] as string).slice(0, 3).toUpperCase();
  return `${yy}${mon}${String(d.getUTCDate()).padStart(2, '0')}`;
}

function randomProbabilities(rng: Rng, n: number): number[] {
  if (n === 2) {
    const p = Math.round(rng.float(0.12, 0.88) * 100) / 100;
    return [p, Math.round((1 - p) * 100) / 100];
  }
  const w = Array.from({ length: n }, () => rng.float(0.05, 1) ** 2);
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => Math.max(0.01, Math.round((x / total) * 100) / 100));
}

function roundTo(ms: number, step: number): number {
  return Math.floor(ms / step) * step;
}

// ---------------------------------------------------------------------------------------------------
// Topics

interface TopicDraft extends Omit<Topic, 'id' | 'winningIndex' | 'resolveTime' | 'probabilities'> {
  probabilities?: number[];
}

function generateTopics(rng: Rng, spec: SizeSpec, start: number): Topic[] {
  const horizon = spec.horizonDays * DAY;
  const drafts: TopicDraft[] = [];
  const r = rng.fork('topics');

  for (let i = 0; i < spec.sportsGames; i++) {
    const league = LEAGUES[i % LEAGUES.length] as LeagueSpec;
    const [home, away] = r.shuffle(league.teams).slice(0, 2) as [
      readonly [string, string],
      readonly [string, string],
    ];
    const gameStart = roundTo(start + r.float(0.1, 0.95) * horizon, 15 * 60_000);
    const homeTeam = { abbreviation: home[0], name: home[1] };
    const awayTeam = { abbreviation: away[0], name: away[1] };
    const outcomes = league.draws ? [homeTeam.name, 'Draw', awayTeam.name] : [homeTeam.name, awayTeam.name];
    drafts.push({
      kind: 'sports_game',
      category: 'sports',
      tags: league.draws ? [league.tag, 'soccer', 'sports'] : [league.tag, 'sports'],
      title: `${homeTeam.name} vs. ${awayTeam.name}`,
      outcomes,
      openTime: gameStart - r.int(2, 6) * DAY,
      closeTime: gameStart + 3 * HOUR,
      resolutionDate: isoDate(gameStart),
      seriesKey: league.code,
      sports: {
        league: league.code,
        sport: league.sport,
        homeTeam,
        awayTeam,
        gameDate: isoDate(gameStart),
        gameStartTime: gameStart,
      },
    });
  }

  for (let i = 0; i < spec.crypto; i++) {
    const btc = r.chance(0.7);
    const day = start + (1 + (i % spec.horizonDays)) * DAY;
    const close = roundTo(day, DAY) + 16 * HOUR;
    const base = btc ? 95_000 : 3_400;
    const strike = btc ? base + r.int(-20, 20) * 500 : base + r.int(-20, 20) * 25;
    const asset = btc ? 'Bitcoin' : 'Ethereum';
    drafts.push({
      kind: 'crypto_threshold',
      category: 'crypto',
      tags: [btc ? 'bitcoin' : 'ethereum', 'crypto'],
      title: `Will ${asset} be above $${strike.toLocaleString('en-US')} on ${monthDay(close)}?`,
      outcomes: ['Yes', 'No'],
      openTime: close - r.int(2, 4) * DAY,
      closeTime: close,
      resolutionDate: isoDate(close),
      seriesKey: btc ? 'btc-daily' : 'eth-daily',
      sports: null,
    });
  }

  for (let i = 0; i < spec.jobless; i++) {
    const close = roundTo(start + r.float(0.2, 0.95) * horizon, HOUR);
    const threshold = 200 + r.int(0, 12) * 5;
    drafts.push({
      kind: 'jobless_claims',
      category: 'economics',
      tags: ['jobs', 'economics'],
      title: `Will initial jobless claims be above ${threshold}K for the week ending ${monthDay(close)}?`,
      outcomes: ['Yes', 'No'],
      openTime: close - 7 * DAY,
      closeTime: close,
      resolutionDate: isoDate(close),
      seriesKey: 'jobless-weekly',
      sports: null,
    });
  }

  for (let i = 0; i < spec.tech; i++) {
    const [company, what] = TECH_EVENTS[i % TECH_EVENTS.length] as readonly [string, string];
    const close = roundTo(start + r.float(0.3, 1.6) * horizon, HOUR);
    drafts.push({
      kind: 'tech_milestone',
      category: 'culture',
      tags:
        what.includes('GPT') || what.includes('Claude') || what.includes('Gemini')
          ? ['ai', 'tech']
          : ['tech'],
      title: `Will ${company} ${what} by ${monthDay(close)}${i >= TECH_EVENTS.length ? ` (${Math.floor(i / TECH_EVENTS.length) + 1})` : ''}?`,
      outcomes: ['Yes', 'No'],
      openTime: start - r.int(5, 40) * DAY,
      closeTime: close,
      resolutionDate: isoDate(close),
      seriesKey: null,
      sports: null,
    });
  }

  for (let i = 0; i < spec.fed; i++) {
    const close = roundTo(start + r.float(0.3, 0.95) * horizon, HOUR);
    const month = MONTHS[new Date(close).getUTCMonth()] as string;
    drafts.push({
      kind: 'fed_decision',
      category: 'economics',
      tags: ['fed', 'economics'],
      title: `Fed decision in ${month}${i > 0 ? ` (meeting ${i + 1})` : ''}?`,
      outcomes: [...FED_OUTCOMES],
      openTime: start - r.int(20, 60) * DAY,
      closeTime: close,
      resolutionDate: isoDate(close),
      seriesKey: 'fed-monthly',
      sports: null,
    });
  }

  for (let i = 0; i < spec.cpi; i++) {
    const close = roundTo(start + r.float(0.3, 0.95) * horizon, HOUR);
    const month = MONTHS[(new Date(close).getUTCMonth() + 11) % 12] as string;
    drafts.push({
      kind: 'cpi_range',
      category: 'economics',
      tags: ['inflation', 'economics'],
      title: `US CPI inflation for ${month}${i > 0 ? ` (release ${i + 1})` : ''}?`,
      outcomes: [...CPI_OUTCOMES],
      openTime: start - r.int(10, 30) * DAY,
      closeTime: close,
      resolutionDate: isoDate(close),
      seriesKey: 'cpi-monthly',
      sports: null,
    });
  }

  for (let i = 0; i < spec.elections; i++) {
    const country = COUNTRIES[i % COUNTRIES.length] as string;
    const n = r.int(3, 6);
    const candidates = r.shuffle(CANDIDATE_NAMES).slice(0, n);
    const close = roundTo(start + r.float(0.4, 1.5) * horizon, HOUR);
    const round = Math.floor(i / COUNTRIES.length);
    drafts.push({
      kind: 'election',
      category: 'politics',
      tags: ['world-elections', 'elections', 'politics'],
      title: `${country} presidential election winner${round > 0 ? ` (round ${round + 1})` : ''}?`,
      outcomes: candidates,
      openTime: start - r.int(30, 90) * DAY,
      closeTime: close,
      resolutionDate: isoDate(close),
      seriesKey: null,
      sports: null,
    });
  }

  const ordered = rng.fork('topic-order').shuffle(drafts);
  const horizonEnd = start + horizon;
  const g = rng.fork('ground-truth');
  return ordered.map((d, i) => {
    const probabilities = d.probabilities ?? randomProbabilities(g, d.outcomes.length);
    const winner = g.weightedIndex(probabilities);
    const resolveTime = d.closeTime + UMA_LIVENESS_MS + g.int(0, 60) * 60_000;
    const resolves = resolveTime < horizonEnd;
    return {
      ...d,
      id: `T${String(i + 1).padStart(5, '0')}`,
      probabilities,
      winningIndex: resolves ? winner : null,
      resolveTime: resolves ? resolveTime : null,
    };
  });
}

// ---------------------------------------------------------------------------------------------------
// Venues

interface Builder {
  events: CatalogEvent[];
  markets: CatalogMarket[];
  series: Map<string, CatalogSeries>;
}

function newBuilder(): Builder {
  return { events: [], markets: [], series: new Map() };
}

const SERIES_INFO: Record<
  string,
  { title: string; recurrence: Recurrence; category: string; tags: string[] }
> = {
  NBA: { title: 'NBA Games', recurrence: 'daily', category: 'sports', tags: ['nba', 'sports'] },
  NHL: { title: 'NHL Games', recurrence: 'daily', category: 'sports', tags: ['nhl', 'sports'] },
  NFL: { title: 'NFL Games', recurrence: 'weekly', category: 'sports', tags: ['nfl', 'sports'] },
  EPL: { title: 'Premier League Matches', recurrence: 'weekly', category: 'sports', tags: ['epl', 'soccer'] },
  'btc-daily': { title: 'Bitcoin Daily Price', recurrence: 'daily', category: 'crypto', tags: ['bitcoin'] },
  'eth-daily': { title: 'Ethereum Daily Price', recurrence: 'daily', category: 'crypto', tags: ['ethereum'] },
  'jobless-weekly': {
    title: 'Weekly Jobless Claims',
    recurrence: 'weekly',
    category: 'economics',
    tags: ['jobs', 'economics'],
  },
  'fed-monthly': { title: 'Fed Decisions', recurrence: 'monthly', category: 'economics', tags: ['fed'] },
  'cpi-monthly': { title: 'CPI Releases', recurrence: 'monthly', category: 'economics', tags: ['inflation'] },
  // beta only: every beta event belongs to a series, recurring or not.
  'tech-milestones': { title: 'Tech Milestones', recurrence: 'one_off', category: 'culture', tags: ['tech'] },
  elections: { title: 'World Elections', recurrence: 'one_off', category: 'politics', tags: ['elections'] },
};

const BETA_SERIES_TICKERS: Record<string, string> = {
  NBA: 'KXNBAGAME',
  NHL: 'KXNHLGAME',
  NFL: 'KXNFLGAME',
  EPL: 'KXEPLGAME',
  'btc-daily': 'KXBTCD',
  'eth-daily': 'KXETHD',
  'jobless-weekly': 'KXJOBLESS',
  'fed-monthly': 'KXFEDDECISION',
  'cpi-monthly': 'KXCPIYOY',
  'tech-milestones': 'KXTECH',
  elections: 'KXELECTION',
};

function seriesFor(venue: VenueCode, b: Builder, topic: Topic, idBase: number): CatalogSeries | null {
  const seriesKey =
    topic.seriesKey ??
    (venue === 'beta' ? (topic.kind === 'election' ? 'elections' : 'tech-milestones') : null);
  if (!seriesKey) return null;
  const existing = b.series.get(seriesKey);
  if (existing) return existing;
  const info = SERIES_INFO[seriesKey];
  if (!info) throw new Error(`no series info for ${seriesKey}`);
  const ticker =
    venue === 'beta' ? (BETA_SERIES_TICKERS[seriesKey] as string) : seriesKey.toUpperCase().replace(/-/g, '');
  const s: CatalogSeries = {
    venue,
    key: venue === 'beta' ? ticker : slugify(info.title),
    id: venue === 'beta' ? ticker : String(idBase + b.series.size),
    ticker,
    slug: slugify(info.title),
    title: info.title,
    recurrence: info.recurrence,
    category: info.category,
    tags: info.tags,
    eventKeys: [],
    createdAt: topic.openTime - 90 * DAY,
  };
  b.series.set(seriesKey, s);
  return s;
}

/** A binary market's outcomes for each alternative of a topic (sports 2-way: the two teams on one market). */
interface Leg {
  question: string;
  outcomes: [string, string];
  groupItemTitle: string | null;
  topicOutcomeIndex: number | null;
  initialPrice: number;
  /** Winning index of this binary market, if the topic resolves. */
  winningIndex: number | null;
}

function legsOf(topic: Topic, splitTwoWay = false): Leg[] {
  const two = topic.outcomes.length === 2;
  if (two && !(splitTwoWay && topic.sports)) {
    return [
      {
        question: topic.title,
        outcomes: [topic.outcomes[0] as string, topic.outcomes[1] as string],
        groupItemTitle: null,
        topicOutcomeIndex: null,
        initialPrice: topic.probabilities[0] as number,
        winningIndex: topic.winningIndex,
      },
    ];
  }
  return topic.outcomes.map((label, i) => ({
    question: multiQuestion(topic, label),
    outcomes: ['Yes', 'No'],
    groupItemTitle: label,
    topicOutcomeIndex: i,
    initialPrice: Math.min(0.97, Math.max(0.03, topic.probabilities[i] as number)),
    winningIndex: topic.winningIndex === null ? null : topic.winningIndex === i ? 0 : 1,
  }));
}

function multiQuestion(topic: Topic, label: string): string {
  switch (topic.kind) {
    case 'sports_game': {
      const s = topic.sports as SportsInfo;
      return label === 'Draw'
        ? `Will ${s.homeTeam.name} vs. ${s.awayTeam.name} end in a draw?`
        : `Will ${label} win on ${s.gameDate}?`;
    }
    case 'fed_decision':
      return `Will the Fed decide: ${label}? (${topic.title.replace(/\?$/, '')})`;
    case 'cpi_range':
      return `Will ${topic.title.replace(/\?$/, '')} be ${label}?`;
    case 'election':
      return `Will ${label} win the ${topic.title.replace(/ winner.*$/, '')}?`;
    default:
      return `${topic.title} — ${label}`;
  }
}

function eventTitle(topic: Topic): string {
  if (topic.kind === 'sports_game') return topic.title;
  return topic.title.replace(/\?$/, '');
}

function hashLabel(text: string): string {
  // Short deterministic code from a label (for tickers): uppercase letters/digits only.
  const clean = text.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return clean.slice(0, 6) || 'X';
}

function buildAlpha(topics: Topic[], rng: Rng, disputedTopicId: string | null): Builder {
  const b = newBuilder();
  let marketSeq = 0;
  const r = rng.fork('alpha');
  topics.forEach((topic, ti) => {
    const legs = legsOf(topic);
    const negRisk = legs.length > 1;
    const series = seriesFor('alpha', b, topic, 10);
    const eventId = String(30000 + ti);
    const slug = `${slugify(eventTitle(topic))}-${topic.id.toLowerCase()}`;
    const feeBips = negRisk ? r.pick([0, 0, 0, 100]) : null;
    const metadata = toHex(`pmdata-sim:${topic.id}:${slug}`);
    const nrMarketId = negRisk
      ? negRiskMarketId(ALPHA_ADDRESSES.negRiskOperator, feeBips ?? 0, metadata)
      : null;
    const event: CatalogEvent = {
      venue: 'alpha',
      key: eventId,
      id: eventId,
      slug,
      ticker: slug,
      title: eventTitle(topic),
      description: `This event is about: ${topic.title} It resolves on ${topic.resolutionDate}.`,
      category: topic.category,
      tags: topic.tags,
      seriesKey: series?.key ?? null,
      topicId: topic.id,
      marketKeys: [],
      mutuallyExclusive: negRisk,
      negRisk,
      negRiskMarketId: nrMarketId,
      negRiskFeeBips: feeBips,
      createdAt: topic.openTime - HOUR,
      startTime: topic.openTime,
      endTime: topic.closeTime,
      sports: topic.sports,
    };
    legs.forEach((leg, li) => {
      const id = String(500000 + marketSeq++);
      const data = toHex(
        `q: title: ${leg.question}, description: This market resolves per ${topic.title} on ${topic.resolutionDate}. res_data: p1: 0, p2: 1, p3: 0.5, market_id: ${id}`,
      );
      let chain: AlphaChainInfo;
      if (negRisk) {
        const questionId = negRiskQuestionId(nrMarketId as Hex, li);
        const ids = binaryPositionIds(NEG_RISK_ORACLE, questionId, NEG_RISK_COLLATERAL);
        const requestId = umaQuestionId(data, ALPHA_ADDRESSES.negRiskOperator);
        chain = {
          questionId,
          conditionId: ids.conditionId,
          oracle: NEG_RISK_ORACLE,
          collateral: NEG_RISK_COLLATERAL,
          ancillaryData: data,
          umaInitializer: ALPHA_ADDRESSES.negRiskOperator,
          umaAdapter: ALPHA_ADDRESSES.negRiskUmaCtfAdapter,
          umaQuestionId: requestId,
          negRisk: true,
          negRiskMarketId: nrMarketId,
          negRiskRequestId: requestId,
          negRiskIndex: li,
          negRiskFeeBips: feeBips,
        };
      } else {
        const questionId = umaQuestionId(data, ALPHA_MARKET_CREATOR);
        const ids = binaryPositionIds(STANDARD_ORACLE, questionId, STANDARD_COLLATERAL);
        chain = {
          questionId,
          conditionId: ids.conditionId,
          oracle: STANDARD_ORACLE,
          collateral: STANDARD_COLLATERAL,
          ancillaryData: data,
          umaInitializer: ALPHA_MARKET_CREATOR,
          umaAdapter: STANDARD_ORACLE,
          umaQuestionId: questionId,
          negRisk: false,
          negRiskMarketId: null,
          negRiskRequestId: null,
          negRiskIndex: null,
          negRiskFeeBips: null,
        };
      }
      const tokenIds = binaryPositionIds(chain.oracle, chain.questionId, chain.collateral).tokenIds;
      const disputed =
        topic.id === disputedTopicId && (leg.topicOutcomeIndex === null || leg.winningIndex === 0);
      const market: CatalogMarket = {
        venue: 'alpha',
        key: chain.conditionId,
        id,
        slug: `${slugify(leg.question)}-${id}`,
        eventKey: event.key,
        seriesKey: event.seriesKey,
        topicId: topic.id,
        topicOutcomeIndex: leg.topicOutcomeIndex,
        question: leg.question,
        description: `This market resolves to "${leg.outcomes[0]}" if ${leg.question.replace(/\?$/, '')} per the official source, otherwise "${leg.outcomes[1]}".`,
        outcomes: leg.outcomes,
        tokenIds,
        groupItemTitle: leg.groupItemTitle,
        category: topic.category,
        tags: topic.tags,
        createdAt: event.createdAt,
        startTime: topic.openTime,
        endTime: topic.closeTime,
        sports: topic.sports,
        initialPrice: leg.initialPrice,
        tickSize: topic.kind === 'sports_game' ? 0.01 : r.pick([0.01, 0.001]),
        minOrderSize: 5,
        kind: 'clob',
        ammAddress: null,
        resolution:
          leg.winningIndex === null || topic.resolveTime === null
            ? null
            : { winningIndex: leg.winningIndex, time: topic.resolveTime, disputed },
        alpha: chain,
        chain: null,
      };
      b.markets.push(market);
      event.marketKeys.push(market.key);
    });
    b.events.push(event);
    series?.eventKeys.push(event.key);
  });
  return b;
}

/** Non-alpha venues: same topics, each venue's own naming and ids. */
function buildOther(
  venue: Exclude<VenueCode, 'alpha'>,
  topics: Topic[],
  rng: Rng,
  coverage: number,
): Builder {
  const b = newBuilder();
  const r = rng.fork(venue);
  let eventSeq = 0;
  let marketSeq = 0;
  for (const topic of topics) {
    if (!r.chance(coverage)) continue;
    // beta lists a game as one Yes/No market per team (like its KX…GAME events).
    const legs = legsOf(topic, venue === 'beta');
    // gamma lists multi-outcome topics as a group of binary markets, like every other venue.
    const series = seriesFor(venue, b, topic, 100);
    const evSeq = eventSeq++;
    const code = dateCode(topic.closeTime);
    let eventKey: string;
    let eventTicker: string;
    if (venue === 'beta') {
      const seriesTicker = series?.ticker ?? `KX${hashLabel(topic.kind)}`;
      const suffix = topic.sports
        ? `${topic.sports.awayTeam.abbreviation}${topic.sports.homeTeam.abbreviation}`
        : `${String(evSeq).padStart(3, '0')}`;
      eventTicker = `${seriesTicker}-${code}${suffix}`;
      eventKey = eventTicker;
    } else {
      eventKey = String((venue === 'gamma' ? 7000 : venue === 'delta' ? 2000 : 900) + evSeq);
      eventTicker = `${slugify(eventTitle(topic))}-${eventKey}`;
    }
    const title =
      venue === 'beta' && topic.sports
        ? `${topic.sports.awayTeam.name} at ${topic.sports.homeTeam.name}`
        : eventTitle(topic);
    const event: CatalogEvent = {
      venue,
      key: eventKey,
      id: eventKey,
      slug: venue === 'beta' ? eventTicker.toLowerCase() : eventTicker,
      ticker: eventTicker,
      title,
      description: `${topic.title} Resolves on ${topic.resolutionDate}.`,
      category: topic.category,
      tags: topic.tags,
      seriesKey: series?.key ?? null,
      topicId: topic.id,
      marketKeys: [],
      mutuallyExclusive: legs.length > 1 || topic.kind === 'sports_game',
      negRisk: false,
      negRiskMarketId: null,
      negRiskFeeBips: null,
      createdAt: topic.openTime - 2 * HOUR,
      startTime: topic.openTime,
      endTime: topic.closeTime,
      sports: topic.sports,
    };
    const kind: 'clob' | 'amm' = venue === 'gamma' && r.chance(0.5) ? 'amm' : 'clob';
    const collateral = VENUE_COLLATERAL[venue];
    for (const leg of legs) {
      const seq = marketSeq++;
      let key: string;
      let id: string;
      let slug: string;
      let tokenIds: [string, string];
      let chainIds: CatalogMarket['chain'] = null;
      if (venue === 'beta') {
        const team = topic.sports
          ? [topic.sports.homeTeam, topic.sports.awayTeam].find((t) => t.name === leg.groupItemTitle)
          : undefined;
        const legCode =
          team?.abbreviation ?? (leg.groupItemTitle !== null ? hashLabel(leg.groupItemTitle) : `T${seq}`);
        key = `${eventTicker}-${legCode}`;
        id = key;
        slug = key.toLowerCase();
        tokenIds = [`${key}:yes`, `${key}:no`];
      } else {
        const qid = r.hex32();
        const ids = binaryPositionIds(VENUE_ORACLE[venue], qid, collateral);
        tokenIds = ids.tokenIds;
        chainIds = { questionId: qid, conditionId: ids.conditionId };
        id = String((venue === 'gamma' ? 70000 : venue === 'delta' ? 4000 : 1000) + seq);
        slug = `${slugify(leg.question)}-${id}`;
        key = venue === 'gamma' ? slug : id;
      }
      const market: CatalogMarket = {
        venue,
        key,
        id,
        slug,
        eventKey: event.key,
        seriesKey: event.seriesKey,
        topicId: topic.id,
        topicOutcomeIndex: leg.topicOutcomeIndex,
        question:
          venue === 'beta' && topic.sports && leg.groupItemTitle !== null && leg.groupItemTitle !== 'Draw'
            ? `Will ${leg.groupItemTitle} win the ${topic.sports.awayTeam.name} vs ${topic.sports.homeTeam.name} game scheduled for ${monthDay(topic.sports.gameStartTime)}, ${new Date(topic.sports.gameStartTime).getUTCFullYear()}?`
            : leg.question,
        description: `Resolves to ${leg.outcomes[0]} if ${leg.question.replace(/\?$/, '')}.`,
        outcomes: leg.outcomes,
        tokenIds,
        groupItemTitle: leg.groupItemTitle,
        category: topic.category,
        tags: topic.tags,
        createdAt: event.createdAt,
        startTime: topic.openTime,
        endTime: topic.closeTime,
        sports: topic.sports,
        initialPrice: Math.min(0.97, Math.max(0.03, leg.initialPrice + r.float(-0.04, 0.04))),
        tickSize: 0.01,
        minOrderSize: venue === 'beta' ? 1 : 5,
        kind,
        ammAddress: kind === 'amm' ? (`0x${r.hex32().slice(26)}` as Address) : null,
        resolution:
          leg.winningIndex === null || topic.resolveTime === null
            ? null
            : {
                winningIndex: leg.winningIndex,
                time: topic.resolveTime + r.int(1, 90) * 60_000,
                disputed: false,
              },
        alpha: null,
        chain: chainIds,
      };
      b.markets.push(market);
      event.marketKeys.push(market.key);
    }
    b.events.push(event);
    series?.eventKeys.push(event.key);
  }
  return b;
}

/** Collateral and oracle stand-ins for the non-alpha venues' own chains (only used to derive token ids). */
const VENUE_COLLATERAL: Record<Exclude<VenueCode, 'alpha' | 'beta'>, Address> & { beta: Address } = {
  beta: '0x0000000000000000000000000000000000000000',
  gamma: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  delta: '0x55d398326f99059fF775485246999027B3197955',
  epsilon: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d',
};
const VENUE_ORACLE: Record<Exclude<VenueCode, 'alpha'>, Address> = {
  beta: '0x0000000000000000000000000000000000000000',
  gamma: '0x000000000000000000000000000000000000dead',
  delta: '0x000000000000000000000000000000000000beef',
  epsilon: '0x000000000000000000000000000000000000c0de',
};

function tagsFor(venue: VenueCode, start: number): CatalogTag[] {
  const base = venue === 'alpha' ? 100 : venue === 'epsilon' ? 50 : 1;
  return TAG_TREE.map(([slug, label, parent], i) => ({
    venue,
    id: String(base + i),
    slug,
    label,
    parentSlug: parent,
    createdAt: start - (400 - i) * DAY,
  }));
}

function categoriesFor(venue: VenueCode): CatalogCategory[] {
  const base = venue === 'gamma' ? 2 : 1;
  const top = CATEGORIES.map(([slug, label], i) => ({
    venue,
    id: String(base + i),
    slug,
    label,
    parentSlug: null as string | null,
  }));
  // Sub-categories: the league and sub-topic tags under their category.
  const subs = TAG_TREE.filter(
    ([, , parent]) => parent !== null && CATEGORIES.some(([c]) => c === parent),
  ).map(([slug, label, parent], i) => ({
    venue,
    id: String(base + CATEGORIES.length + i),
    slug,
    label,
    parentSlug: parent,
  }));
  return [...top, ...subs];
}

/** Builds the deterministic catalog of a world. Same options → deep-equal result. */
export function generateCatalog(options: GenerateCatalogOptions): Catalog {
  const sized = SIZES[options.size];
  if (!sized) throw new Error(`unknown catalog size ${String(options.size)}`);
  if (
    options.horizonDays !== undefined &&
    !(Number.isInteger(options.horizonDays) && options.horizonDays >= 1)
  )
    throw new Error(`horizonDays must be a whole number of days ≥ 1, got ${options.horizonDays}`);
  const spec: SizeSpec = { ...sized, horizonDays: options.horizonDays ?? sized.horizonDays };
  if (!Number.isFinite(options.startTime))
    throw new Error('generateCatalog needs a numeric startTime (Unix ms)');
  const seed = String(options.seed);
  const rng = createRng(`catalog:${seed}:${options.size}`);
  const start = options.startTime;
  const endTime = start + spec.horizonDays * DAY;
  const topics = generateTopics(rng, spec, start);

  // Guarantees: at least one resolving Yes/No topic is disputed on alpha; at least one topic stays unresolved.
  const disputed = topics.find((t) => t.winningIndex !== null && t.outcomes[0] === 'Yes') ?? null;
  if (!topics.some((t) => t.winningIndex === null)) {
    const t = topics.find((x) => x !== disputed && x.kind !== 'sports_game') ?? topics[topics.length - 1];
    if (t) {
      t.winningIndex = null;
      t.resolveTime = null;
      t.closeTime = endTime + 3 * DAY;
    }
  }

  const alpha = buildAlpha(topics, rng, disputed?.id ?? null);
  const venues = { alpha } as Record<VenueCode, Builder>;
  for (const v of ['beta', 'gamma', 'delta', 'epsilon'] as const) {
    venues[v] = buildOther(v, topics, rng, spec.coverage[v]);
  }
  const out = {} as Record<VenueCode, VenueCatalog>;
  for (const v of VENUES) {
    const b = venues[v];
    out[v] = {
      venue: v,
      events: b.events,
      markets: b.markets,
      series: [...b.series.values()],
      tags: tagsFor(v, start),
      categories: categoriesFor(v),
    };
  }
  return {
    seed,
    size: options.size,
    startTime: start,
    endTime,
    topics,
    venues: out,
    alphaMarketCreator: ALPHA_MARKET_CREATOR,
  };
}

/** Index helpers over a catalog (built once; the catalog itself is plain data). */
export interface CatalogIndex {
  market(venue: VenueCode, key: string): CatalogMarket | undefined;
  marketByToken(
    venue: VenueCode,
    tokenId: string,
  ): { market: CatalogMarket; outcomeIndex: number } | undefined;
  marketByConditionId(conditionId: string): CatalogMarket | undefined;
  event(venue: VenueCode, key: string): CatalogEvent | undefined;
  series(venue: VenueCode, key: string): CatalogSeries | undefined;
  topic(id: string): Topic | undefined;
}

export function indexCatalog(catalog: Catalog): CatalogIndex {
  const markets = new Map<string, CatalogMarket>();
  const tokens = new Map<string, { market: CatalogMarket; outcomeIndex: number }>();
  const conditions = new Map<string, CatalogMarket>();
  const events = new Map<string, CatalogEvent>();
  const series = new Map<string, CatalogSeries>();
  const topics = new Map(catalog.topics.map((t) => [t.id, t]));
  for (const v of VENUES) {
    const vc = catalog.venues[v];
    for (const m of vc.markets) {
      markets.set(`${v}|${m.key}`, m);
      m.tokenIds.forEach((t, i) => {
        tokens.set(`${v}|${t}`, { market: m, outcomeIndex: i });
      });
      if (m.alpha) conditions.set(m.alpha.conditionId.toLowerCase(), m);
    }
    for (const e of vc.events) events.set(`${v}|${e.key}`, e);
    for (const s of vc.series) series.set(`${v}|${s.key}`, s);
  }
  return {
    market: (v, key) => markets.get(`${v}|${key}`),
    marketByToken: (v, t) => tokens.get(`${v}|${t}`),
    marketByConditionId: (c) => conditions.get(c.toLowerCase()),
    event: (v, key) => events.get(`${v}|${key}`),
    series: (v, key) => series.get(`${v}|${key}`),
    topic: (id) => topics.get(id),
  };
}
