/**
 * Configuration: read from the environment once, validated, typed. Every variable is declared in
 * `VARIABLES` with its unit, default and accepted form; `docs/configuration.md` documents each one
 * (a test keeps the two in step). A bad value fails at start with a message naming the variable.
 */
import path from 'node:path';
import { ConfigError } from './errors.ts';

type Parser<T> = (raw: string) => T;

interface VariableSpec<T> {
  /** Environment variable name. */
  env: string;
  /** Default, as the raw string the environment would carry; undefined means "unset". */
  default: string | undefined;
  /** The accepted form, quoted in error messages. */
  form: string;
  parse: Parser<T>;
}

class InvalidValue extends Error {}

const integer =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new InvalidValue();
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidValue();
    return n;
  };

const boolean: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new InvalidValue();
};

const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw) => {
    if (!(values as string[]).includes(raw)) throw new InvalidValue();
    return raw as T;
  };

const url =
  (...protocols: string[]): Parser<string> =>
  (raw) => {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new InvalidValue();
    }
    if (!protocols.includes(u.protocol)) throw new InvalidValue();
    return raw;
  };

const optional =
  <T>(p: Parser<T>): Parser<T | undefined> =>
  (raw) =>
    raw.trim() === '' ? undefined : p(raw.trim());

const list =
  <T>(item: Parser<T>): Parser<T[]> =>
  (raw) =>
    raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map(item);

/** A name usable unquoted in SQL (databases, tables, columns). */
export const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

const identifier: Parser<string> = (raw) => {
  if (!PLAIN_IDENTIFIER.test(raw)) throw new InvalidValue();
  return raw;
};

const text: Parser<string> = (raw) => raw;

const minLength =
  (n: number): Parser<string> =>
  (raw) => {
    if (raw.length < n) throw new InvalidValue();
    return raw;
  };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const VENUES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta'] as const;

/** Every variable pmdata reads. Keep `docs/configuration.md` in step (a test checks). */
export const VARIABLES = {
  dataDir: { env: 'PMDATA_DATA_DIR', default: './data', form: 'a directory path', parse: text },
  logLevel: {
    env: 'LOG_LEVEL',
    default: 'info',
    form: LOG_LEVELS.join('|'),
    parse: oneOf(...LOG_LEVELS),
  },
  host: { env: 'HOST', default: '127.0.0.1', form: 'an interface address', parse: text },
  port: { env: 'PORT', default: '8080', form: 'an integer 0..65535', parse: integer(0, 65535) },
  requestTimeoutMs: {
    env: 'REQUEST_TIMEOUT_MS',
    default: '30000',
    form: 'an integer 1000..600000 (milliseconds)',
    parse: integer(1000, 600_000),
  },
  shutdownTimeoutMs: {
    env: 'SHUTDOWN_TIMEOUT_MS',
    default: '30000',
    form: 'an integer 100..600000 (milliseconds)',
    parse: integer(100, 600_000),
  },
  clickhouseUrl: {
    env: 'CLICKHOUSE_URL',
    default: undefined,
    form: 'an http(s) URL, or unset for the embedded engine',
    parse: optional(url('http:', 'https:')),
  },
  clickhouseUser: { env: 'CLICKHOUSE_USER', default: 'default', form: 'a user name', parse: text },
  clickhousePassword: { env: 'CLICKHOUSE_PASSWORD', default: '', form: 'a password', parse: text },
  clickhouseDatabase: {
    env: 'CLICKHOUSE_DATABASE',
    default: 'pmdata',
    form: 'an identifier [A-Za-z_][A-Za-z0-9_]*',
    parse: identifier,
  },
  clickhouseCluster: {
    env: 'CLICKHOUSE_CLUSTER',
    default: undefined,
    form: 'a cluster name (identifier), or unset',
    parse: optional(identifier),
  },
  clickhouseReplicated: {
    env: 'CLICKHOUSE_REPLICATED',
    default: 'false',
    form: 'true|false',
    parse: boolean,
  },
  clickhouseMaxExecutionTime: {
    env: 'CLICKHOUSE_MAX_EXECUTION_TIME',
    default: '60',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  redisUrl: {
    env: 'REDIS_URL',
    default: 'redis://127.0.0.1:6399',
    form: 'a redis:// or rediss:// URL',
    parse: url('redis:', 'rediss:'),
  },
  redisEmbedded: {
    env: 'REDIS_EMBEDDED',
    default: 'true',
    form: 'true|false',
    parse: boolean,
  },
  workerConcurrency: {
    env: 'WORKER_CONCURRENCY',
    default: '4',
    form: 'an integer 1..256',
    parse: integer(1, 256),
  },
  maintenanceIntervalS: {
    env: 'MAINTENANCE_INTERVAL_S',
    default: '300',
    form: 'an integer 5..86400 (seconds)',
    parse: integer(5, 86_400),
  },
  alphaRpcUrls: {
    env: 'ALPHA_RPC_URLS',
    default: 'http://127.0.0.1:8545',
    form: 'comma-separated http(s) or ws(s) URLs',
    parse: list(url('http:', 'https:', 'ws:', 'wss:')),
  },
  alphaChainId: {
    env: 'ALPHA_CHAIN_ID',
    default: '137',
    form: 'an integer 1..4294967295 (EVM chain id)',
    parse: integer(1, 4_294_967_295),
  },
  alphaFinalityDepth: {
    env: 'ALPHA_FINALITY_DEPTH',
    default: '128',
    form: 'an integer 0..100000 (blocks)',
    parse: integer(0, 100_000),
  },
  alphaStartBlock: {
    env: 'ALPHA_START_BLOCK',
    default: '4023686',
    form: 'an integer >= 0 (block number)',
    parse: integer(0, Number.MAX_SAFE_INTEGER),
  },
  alphaLogRange: {
    env: 'ALPHA_LOG_RANGE',
    default: '10',
    form: 'an integer 1..1000000 (blocks per eth_getLogs at start)',
    parse: integer(1, 1_000_000),
  },
  alphaLogRangeMax: {
    env: 'ALPHA_LOG_RANGE_MAX',
    default: '10000',
    form: 'an integer 1..1000000 (blocks)',
    parse: integer(1, 1_000_000),
  },
  alphaBackfillJobBlocks: {
    env: 'ALPHA_BACKFILL_JOB_BLOCKS',
    default: '100000',
    form: 'an integer 1..100000000 (blocks per backfill job)',
    parse: integer(1, 100_000_000),
  },
  alphaPipelineWorkers: {
    env: 'ALPHA_PIPELINE_WORKERS',
    default: '0',
    form: 'an integer 0..16 (worker threads beside the calling thread per backfill range; 0 = none)',
    parse: integer(0, 16),
  },
  alphaPollIntervalMs: {
    env: 'ALPHA_POLL_INTERVAL_MS',
    default: '2000',
    form: 'an integer 10..600000 (milliseconds)',
    parse: integer(10, 600_000),
  },
  alphaRpcReader: {
    env: 'ALPHA_RPC_READER',
    default: 'slabs',
    form: 'slabs|fetch',
    parse: oneOf('slabs', 'fetch'),
  },
  alphaPositionIds: {
    env: 'ALPHA_POSITION_IDS',
    default: 'ctf',
    form: 'ctf|simplified',
    parse: oneOf('ctf', 'simplified'),
  },
  alphaAddressesFile: {
    env: 'ALPHA_ADDRESSES_FILE',
    default: undefined,
    form: 'a JSON file path, or unset for the Polygon defaults',
    parse: optional(text),
  },
  apiSecret: {
    env: 'PMDATA_SECRET',
    default: undefined,
    form: 'a string of at least 32 characters, or unset (embedded mode keeps a generated one under the data dir)',
    parse: optional(minLength(32)),
  },
  keepAliveTimeoutMs: {
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    default: '72000',
    form: 'an integer 1000..600000 (milliseconds)',
    parse: integer(1000, 600_000),
  },
  headersTimeoutMs: {
    env: 'HEADERS_TIMEOUT_MS',
    default: '10000',
    form: 'an integer 1000..600000 (milliseconds)',
    parse: integer(1000, 600_000),
  },
  corsOrigins: {
    env: 'CORS_ORIGINS',
    default: '*',
    form: "'*' or comma-separated origins (https://app.example.com)",
    parse: list(text),
  },
  removedVenues: {
    env: 'REMOVED_VENUES',
    default: '',
    form: `comma-separated venue codes (${VENUES.join(', ')})`,
    parse: list(oneOf(...VENUES)),
  },
  // The API's response cache (api/plugins/cache.ts).
  apiCacheBytes: {
    env: 'API_CACHE_BYTES',
    default: String(64 * 1024 * 1024),
    form: 'an integer 0..17179869184 (bytes of cached responses per API process; 0 = no cache)',
    parse: integer(0, 16 * 1024 ** 3),
  },
  apiCacheShared: {
    env: 'API_CACHE_SHARED',
    default: 'false',
    form: 'true|false',
    parse: boolean,
  },
  apiCacheTtlS: {
    env: 'API_CACHE_TTL_S',
    default: '300',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
} satisfies Record<string, VariableSpec<unknown>>;

type Variables = typeof VARIABLES;
export type Config = { [K in keyof Variables]: ReturnType<Variables[K]['parse']> } & {
  /** True when no CLICKHOUSE_URL is set: ClickHouse runs in-process (chDB). */
  readonly embedded: boolean;
};

/**
 * Reads and validates every variable. Collects all problems before failing, so one start shows every
 * bad value at once.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: { variable: string; message: string }[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(VARIABLES) as [string, VariableSpec<unknown>][]) {
    const raw = env[spec.env] ?? spec.default;
    if (raw === undefined) {
      out[key] = undefined;
      continue;
    }
    try {
      out[key] = spec.parse(raw);
    } catch {
      problems.push({
        variable: spec.env,
        message: `got ${JSON.stringify(raw)}, expected ${spec.form}`,
      });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  out.dataDir = path.resolve(out.dataDir as string);
  out.embedded = out.clickhouseUrl === undefined;
  return Object.freeze(out) as Config;
}
