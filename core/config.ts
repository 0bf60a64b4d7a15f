/**
 * Configuration: read from the environment once, validated, typed. Every variable is declared with its
 * unit, default and accepted form: core's in `VARIABLES`, a venue's in its own section
 * (ingest/venues/<code>/config.ts, `defineConfigSection`), which the entry points hand to `loadConfig`
 * (jobs/config.ts lists them). `docs/configuration.md` documents each one (a test keeps the two in
 * step). A bad value fails at start with a message naming the variable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, PermanentError } from './errors.ts';
import { LOG_FORMATS } from './logger.ts';

export type Parser<T> = (raw: string) => T;

export interface VariableSpec<T> {
  /** Environment variable name. */
  env: string;
  /** Default, as the raw string the environment would carry; undefined means "unset". */
  default: string | undefined;
  /** The accepted form, quoted in error messages. */
  form: string;
  parse: Parser<T>;
  /** A secret: an error names its length, never its value. */
  secret?: boolean;
}

class InvalidValue extends Error {}

export const integer =
  (min: number, max: number): Parser<number> =>
  (raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new InvalidValue();
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidValue();
    return n;
  };

export const boolean: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new InvalidValue();
};

export const oneOf =
  <T extends string>(...values: T[]): Parser<T> =>
  (raw) => {
    if (!(values as string[]).includes(raw)) throw new InvalidValue();
    return raw as T;
  };

export const url =
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

export const optional =
  <T>(p: Parser<T>): Parser<T | undefined> =>
  (raw) =>
    raw.trim() === '' ? undefined : p(raw.trim());

export const list =
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

export const text: Parser<string> = (raw) => raw;

/** A Redis: a redis:// or rediss:// URL, or the absolute path of a unix socket (what ioredis accepts). */
const redisLocation: Parser<string> = (raw) => (raw.startsWith('/') ? raw : url('redis:', 'rediss:')(raw));

/**
 * Longest unix socket path used (bytes): the kernel's `sun_path` holds 108 bytes with the final NUL on
 * Linux, 104 on macOS.
 */
export const UNIX_SOCKET_PATH_MAX = 103;

/**
 * Where a data dir's own Redis (REDIS_URL unset, core/redis-server.ts) listens: the unix socket
 * `<dataDir>/redis/redis.sock`, or when that path is too long for a socket, 127.0.0.1 on the port recorded
 * in `<dataDir>/redis/port` (`portFile`; port 0 until the first start records one).
 */
export function ownRedisPlace(dataDir: string): { url: string; socket?: string; portFile: string } {
  const dir = path.join(dataDir, 'redis');
  const socket = path.join(dir, 'redis.sock');
  const portFile = path.join(dir, 'port');
  if (Buffer.byteLength(socket) <= UNIX_SOCKET_PATH_MAX) return { url: socket, socket, portFile };
  let port = 0;
  try {
    port = Number.parseInt(fs.readFileSync(portFile, 'utf8').trim(), 10) || 0;
  } catch {}
  return { url: `redis://127.0.0.1:${port}`, portFile };
}

const minLength =
  (n: number): Parser<string> =>
  (raw) => {
    if (raw.length < n) throw new InvalidValue();
    return raw;
  };

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const REQUEST_LOG_LEVELS = ['info', 'debug', 'trace', 'silent'] as const;
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
  logFormat: {
    env: 'LOG_FORMAT',
    default: 'auto',
    form: LOG_FORMATS.join('|'),
    parse: oneOf(...LOG_FORMATS),
  },
  logRequestLevel: {
    env: 'LOG_REQUEST_LEVEL',
    default: 'info',
    form: REQUEST_LOG_LEVELS.join('|'),
    parse: oneOf(...REQUEST_LOG_LEVELS),
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
    default: undefined,
    form: "a redis:// or rediss:// URL, the absolute path of a unix socket, or unset (the data dir's own)",
    parse: optional(redisLocation),
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
  apiSecret: {
    env: 'PMDATA_SECRET',
    default: undefined,
    form: 'a string of at least 32 characters, or unset (embedded mode keeps a generated one under the data dir)',
    parse: optional(minLength(32)),
    secret: true,
  },
  adminKey: {
    env: 'PMDATA_ADMIN_KEY',
    default: undefined,
    form: 'a string of at least 32 characters, or unset (embedded mode keeps a generated one under the data dir; cluster mode then mounts no admin route)',
    parse: optional(minLength(32)),
    secret: true,
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
  // The streaming service (api/stream/, docs/streaming.md).
  streamPort: {
    env: 'STREAM_PORT',
    default: '8090',
    form: 'an integer 0..65535 (the `pmdata stream` role; `up` serves the stream on PORT)',
    parse: integer(0, 65535),
  },
  streamMaxConnections: {
    env: 'STREAM_MAX_CONNECTIONS',
    default: '10000',
    form: 'an integer 1..1000000 (connections per stream process)',
    parse: integer(1, 1_000_000),
  },
  streamDropBytes: {
    env: 'STREAM_DROP_BYTES',
    default: String(1024 * 1024),
    form: 'an integer 1024..1073741824 (bytes)',
    parse: integer(1024, 1024 ** 3),
  },
  streamTerminateBytes: {
    env: 'STREAM_TERMINATE_BYTES',
    default: String(4 * 1024 * 1024),
    form: 'an integer 1024..1073741824 (bytes)',
    parse: integer(1024, 1024 ** 3),
  },
  streamPingIntervalMs: {
    env: 'STREAM_PING_INTERVAL_MS',
    default: '30000',
    form: 'an integer 10..600000 (milliseconds)',
    parse: integer(10, 600_000),
  },
  streamPongTimeoutMs: {
    env: 'STREAM_PONG_TIMEOUT_MS',
    default: '60000',
    form: 'an integer 10..600000 (milliseconds)',
    parse: integer(10, 600_000),
  },
  streamIdleTimeoutMs: {
    env: 'STREAM_IDLE_TIMEOUT_MS',
    default: '120000',
    form: 'an integer 10..3600000 (milliseconds)',
    parse: integer(10, 3_600_000),
  },
  streamKeyCheckMs: {
    env: 'STREAM_KEY_CHECK_MS',
    default: '30000',
    form: 'an integer 10..60000 (milliseconds)',
    parse: integer(10, 60_000),
  },
  /** A source whose lag (blocks' time, or time since its last good poll) exceeds this is `lagging`. */
  opsLagWarnS: {
    env: 'OPS_LAG_WARN_S',
    default: '300',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  /** A source behind its head whose checkpoint has not moved for this long is `stalled`. */
  opsStallS: {
    env: 'OPS_STALL_S',
    default: '600',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  // Metrics (core/metrics.ts, docs/operations.md "Metrics").
  metricsPort: {
    env: 'METRICS_PORT',
    default: '9464',
    form: 'an integer 0..65535 (the worker and scheduler roles; 0 = off)',
    parse: integer(0, 65535),
  },
  metricsHttp: {
    env: 'METRICS_HTTP',
    default: 'true',
    form: 'true|false',
    parse: boolean,
  },
} satisfies Record<string, VariableSpec<unknown>>;

/** Declarations of variables, by the key their values get in the loaded config. */
export type VariableSpecs = Record<string, VariableSpec<unknown>>;
/** The values of a block of declarations, once loaded. */
export type ValuesOf<V extends VariableSpecs> = { readonly [K in keyof V]: ReturnType<V[K]['parse']> };

export type Config = Omit<ValuesOf<typeof VARIABLES>, 'redisUrl'> & {
  /**
   * Where Redis is: REDIS_URL, or when unset the data dir's own (`ownRedisPlace`). A runtime's config
   * (jobs/runtime.ts) holds the place its Redis was found or started at.
   */
  readonly redisUrl: string;
  /** True when REDIS_URL is unset: the Redis is the data dir's own (core/redis-server.ts). */
  readonly redisOwn: boolean;
  /** True when no CLICKHOUSE_URL is set: ClickHouse runs in-process (chDB). */
  readonly embedded: boolean;
  /** The values of each section `loadConfig` was given, by section name; read them with `section.of`. */
  readonly sections: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
};

/**
 * A block of variables a part of pmdata declares for itself (a venue's settings, in its own config
 * module) and `loadConfig` validates with the rest at start. Core knows no section: the entry points
 * pass them.
 */
export interface ConfigSection<V extends VariableSpecs = VariableSpecs> {
  /** The section's name (a venue code); its values are `config.sections[name]`. */
  readonly name: string;
  readonly variables: V;
  /** This section's values in a loaded config; fails when the config was loaded without the section. */
  of(config: Config): ValuesOf<V>;
}

export function defineConfigSection<V extends VariableSpecs>(name: string, variables: V): ConfigSection<V> {
  return {
    name,
    variables,
    of(config) {
      const values = config.sections[name];
      if (!values) {
        throw new PermanentError(
          `The configuration was loaded without the "${name}" section: pass it to loadConfig (jobs/config.ts)`,
        );
      }
      return values as ValuesOf<V>;
    },
  };
}

/** Parses `specs` from `env` into an object, adding each bad value to `problems`. */
function parseVariables(
  env: NodeJS.ProcessEnv,
  specs: VariableSpecs,
  problems: { variable: string; message: string }[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) {
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
        message: `got ${spec.secret ? `a value of ${raw.length} characters` : JSON.stringify(raw)}, expected ${spec.form}`,
      });
    }
  }
  return out;
}

/**
 * Reads and validates every variable: core's and those of each section given. Collects all problems
 * before failing, so one start shows every bad value at once.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  sections: readonly ConfigSection[] = [],
): Config {
  const declared = new Set(Object.values(VARIABLES).map((v) => v.env));
  for (const section of sections) {
    for (const spec of Object.values(section.variables)) {
      if (declared.has(spec.env)) throw new Error(`${spec.env} is declared twice (section ${section.name})`);
      declared.add(spec.env);
    }
  }
  const problems: { variable: string; message: string }[] = [];
  const out = parseVariables(env, VARIABLES, problems);
  const values: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const section of sections) {
    values[section.name] = Object.freeze(parseVariables(env, section.variables, problems));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  out.dataDir = path.resolve(out.dataDir as string);
  out.redisOwn = out.redisUrl === undefined;
  if (out.redisOwn) out.redisUrl = ownRedisPlace(out.dataDir as string).url;
  out.embedded = out.clickhouseUrl === undefined;
  out.sections = Object.freeze(values);
  return Object.freeze(out) as Config;
}
