/**
 * Venue alpha's settings: the variables its chain ingestion reads, declared here with their unit,
 * default and accepted form, and validated with every other variable at start by core's loader
 * (`loadConfig(env, CONFIG_SECTIONS)`, jobs/config.ts). docs/configuration.md documents each one.
 * Read them with `alphaConfig.of(config)`.
 */
import { defineConfigSection, integer, list, oneOf, optional, text, url } from '../../../core/config.ts';

export const alphaConfig = defineConfigSection('alpha', {
  /** EVM JSON-RPC endpoints of alpha's chain, tried in order with fallback. */
  rpcUrls: {
    env: 'ALPHA_RPC_URLS',
    default: 'http://127.0.0.1:8545',
    form: 'comma-separated http(s) or ws(s) URLs',
    parse: list(url('http:', 'https:', 'ws:', 'wss:')),
  },
  /** Chain id of alpha's chain; the ingestion refuses an RPC that reports another. */
  chainId: {
    env: 'ALPHA_CHAIN_ID',
    default: '137',
    form: 'an integer 1..4294967295 (EVM chain id)',
    parse: integer(1, 4_294_967_295),
  },
  /** Blocks under the head after which rows are confirmed (and reorgs are no longer followed). */
  finalityDepth: {
    env: 'ALPHA_FINALITY_DEPTH',
    default: '128',
    form: 'an integer 0..100000 (blocks)',
    parse: integer(0, 100_000),
  },
  /** Default `--from-block` of a backfill, and the follower's first block on an empty database. */
  startBlock: {
    env: 'ALPHA_START_BLOCK',
    default: '4023686',
    form: 'an integer >= 0 (block number)',
    parse: integer(0, Number.MAX_SAFE_INTEGER),
  },
  /** First block range of eth_getLogs, adapted at run time. */
  logRange: {
    env: 'ALPHA_LOG_RANGE',
    default: '10',
    form: 'an integer 1..1000000 (blocks per eth_getLogs at start)',
    parse: integer(1, 1_000_000),
  },
  /** Largest block range of one eth_getLogs. */
  logRangeMax: {
    env: 'ALPHA_LOG_RANGE_MAX',
    default: '10000',
    form: 'an integer 1..1000000 (blocks)',
    parse: integer(1, 1_000_000),
  },
  /** Block range of one backfill job. */
  backfillJobBlocks: {
    env: 'ALPHA_BACKFILL_JOB_BLOCKS',
    default: '100000',
    form: 'an integer 1..100000000 (blocks per backfill job)',
    parse: integer(1, 100_000_000),
  },
  /** Worker threads that share a backfill range job with the thread running it. */
  pipelineWorkers: {
    env: 'ALPHA_PIPELINE_WORKERS',
    default: '0',
    form: 'an integer 0..16 (worker threads beside the calling thread per backfill range; 0 = none)',
    parse: integer(0, 16),
  },
  /** How often the live follower asks for the head. */
  pollIntervalMs: {
    env: 'ALPHA_POLL_INTERVAL_MS',
    default: '2000',
    form: 'an integer 10..600000 (milliseconds)',
    parse: integer(10, 600_000),
  },
  /** Outcome-token id derivation: ConditionalTokens' (Polygon) or the simulated chain's. */
  positionIds: {
    env: 'ALPHA_POSITION_IDS',
    default: 'ctf',
    form: 'ctf|simplified',
    parse: oneOf('ctf', 'simplified'),
  },
  /** A JSON file replacing the default contract address sets (ingest/chain/settings.ts). */
  addressesFile: {
    env: 'ALPHA_ADDRESSES_FILE',
    default: undefined,
    form: 'a JSON file path, or unset for the Polygon defaults',
    parse: optional(text),
  },
  /** Base URL of alpha's metadata API (events, markets, series, tags). */
  metadataUrl: {
    env: 'ALPHA_METADATA_URL',
    default: 'https://gamma-api.polymarket.com',
    form: 'an http(s) URL',
    parse: url('http:', 'https:'),
  },
  /** Timeout of one request to alpha's REST APIs (retried with backoff when it expires). */
  httpTimeoutMs: {
    env: 'ALPHA_HTTP_TIMEOUT_MS',
    default: '10000',
    form: 'an integer 100..600000 (milliseconds)',
    parse: integer(100, 600_000),
  },
  /** How often the open events (with their markets) are synced. */
  catalogIntervalS: {
    env: 'ALPHA_CATALOG_INTERVAL_S',
    default: '60',
    form: 'an integer 5..86400 (seconds)',
    parse: integer(5, 86_400),
  },
  /** How often the full catalog (closed events, tags, related tags, series) is synced. */
  catalogFullIntervalS: {
    env: 'ALPHA_CATALOG_FULL_INTERVAL_S',
    default: '3600',
    form: 'an integer 60..604800 (seconds)',
    parse: integer(60, 604_800),
  },
  /** Base URL of alpha's book API (`POST /books`). */
  bookUrl: {
    env: 'ALPHA_BOOK_URL',
    default: 'https://clob.polymarket.com',
    form: 'an http(s) URL',
    parse: url('http:', 'https:'),
  },
  /** How often the books of open markets' tokens are read. */
  bookIntervalS: {
    env: 'ALPHA_BOOK_INTERVAL_S',
    default: '60',
    form: 'an integer 5..86400 (seconds)',
    parse: integer(5, 86_400),
  },
});

export type AlphaConfig = ReturnType<typeof alphaConfig.of>;
