/**
 * `pmdata keys ...`: issue, list, revoke API keys and show their monthly usage. The CLI entry
 * (jobs/cli.ts) calls `runKeys(argv)` with the words after `keys`; `runKeysCommand(argv, { redis })` is
 * the command on a Redis client of the caller's (tests). The key store is api/keys/store.ts.
 *
 *   keys create --tier dev --name X [--rate N] [--stream NAME=N ...]   prints the new key once (Redis keeps only its hash)
 *   keys list
 *   keys revoke <key_id>
 *   keys usage [<key_id>] [--month YYYY-MM]
 */
import { parseArgs } from 'node:util';
import { PLANS, rateFor, STREAM_LIMIT_OPTIONS, STREAM_LIMITS, TIERS, type Tier } from '../../api/access.ts';
import { type ApiKeyRecord, createKeyStore, monthOf } from '../../api/keys/store.ts';
import { createRedis, type Redis } from '../../core/redis.ts';
import { ensureRedis } from '../../core/redis-server.ts';
import { TICKS_USD_PER_GIB } from '../../schemas/ticks.ts';

export const KEYS_USAGE = `Usage:
  pmdata keys create --tier <free|dev|pro|enterprise> --name <name> [--rate <req/s, enterprise only>]
                    [--stream <NAME=N, enterprise only, repeatable; NAME: ${Object.keys(STREAM_LIMIT_OPTIONS).join('|')}>]
  pmdata keys list
  pmdata keys revoke <key_id>
  pmdata keys usage [<key_id>] [--month YYYY-MM]

Options:
  --tier T       create: one of ${TIERS.join(', ')} (required; no default)
  --name NAME    create: a name for the key (required; no default)
  --rate N       create, enterprise only: requests per second, 1..100000 (default: ${rateFor('enterprise', undefined)})
  --stream NAME=N  create, enterprise only: a streaming limit (default: the Enterprise plan's)
  --month YYYY-MM  usage: the month (default: the current month, UTC)`;

export interface KeysCommandDeps {
  redis: Redis;
  /** Where lines go; default stdout. */
  out?: (line: string) => void;
  /** Where problems go; default stderr. */
  err?: (line: string) => void;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

const usd = (n: number) => `$${n.toFixed(2)}`;
const count = (n: number) => n.toLocaleString('en-US');

/**
 * `pmdata keys ...` as a process: keys live in Redis only, so no ClickHouse is opened and this works
 * beside a running `pmdata up` (a Redis is started in embedded mode when nothing answers).
 */
export async function runKeys(argv: string[]): Promise<number> {
  const { bootConfig } = await import('../runtime.ts');
  const { config, log } = bootConfig();
  const { url, server } = await ensureRedis({ config, log });
  const redis = createRedis(url, { maxRetriesPerRequest: 3 });
  try {
    return await runKeysCommand(argv, { redis });
  } finally {
    redis.disconnect();
    await server?.stop();
  }
}

/** Returns the process exit code: 0 done, 1 not found, 2 bad usage. */
export async function runKeysCommand(argv: string[], deps: KeysCommandDeps): Promise<number> {
  const out = deps.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = deps.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const args = argv[0] === 'keys' ? argv.slice(1) : argv;
  const [sub, ...rest] = args;
  const store = createKeyStore(deps.redis);
  const usageError = (message: string) => {
    err(message);
    err(KEYS_USAGE);
    return 2;
  };

  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: rest, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    return usageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || sub === undefined || sub === 'help' || sub === '--help') {
    out(KEYS_USAGE);
    return sub === undefined ? 2 : 0;
  }

  switch (sub) {
    case 'create': {
      const tier = values.tier as Tier | undefined;
      if (tier === undefined) return usageError(`--tier is required: one of ${TIERS.join(', ')}`);
      if (!(TIERS as readonly string[]).includes(tier)) {
        return usageError(`--tier: got "${tier}", expected one of ${TIERS.join(', ')}`);
      }
      if (!values.name?.trim()) return usageError('--name is required');
      let rate: number | undefined;
      if (values.rate !== undefined) {
        if (tier !== 'enterprise') return usageError('--rate applies to enterprise keys only');
        rate = Number(values.rate);
        if (!Number.isInteger(rate) || rate < 1 || rate > 100_000) {
          return usageError('--rate must be an integer 1..100000 (requests per second)');
        }
      }
      const stream: Record<string, number> = {};
      const streamShown: string[] = [];
      for (const spec of values.stream ?? []) {
        if (tier !== 'enterprise') return usageError('--stream applies to enterprise keys only');
        const m = /^([a-z_]+)=(\d{1,9})$/.exec(spec);
        const option = m ? STREAM_LIMIT_OPTIONS[m[1]!] : undefined;
        if (!m || !option) {
          return usageError(
            `--stream takes NAME=N with NAME one of ${Object.keys(STREAM_LIMIT_OPTIONS).join(', ')} (got ${spec})`,
          );
        }
        stream[option.field] = Number(m[2]);
        streamShown.push(`${m[1]} ${Number(m[2]).toLocaleString('en-US')}`);
      }
      const { key, record } = await store.create({ tier, name: values.name.trim(), rate, stream });
      out(`Created ${PLANS[tier].label} key ${record.id} (${record.name}), ${rateFor(tier, rate)} req/s.`);
      if (tier === 'enterprise') {
        const d = STREAM_LIMITS.enterprise!;
        out(
          `Streaming limits: ${streamShown.length > 0 ? streamShown.join(', ') : 'the defaults'} (defaults: connections ${d.connections}, subscriptions ${d.subscriptionsPerConnection}, items ${d.itemsPerSubscription}, total_items ${d.totalItems}, wildcards ${d.wildcardsPerChannel}).`,
        );
      }
      out(`API key (shown once, store it now): ${key}`);
      return 0;
    }
    case 'list': {
      const keys = await store.list();
      if (keys.length === 0) {
        out('No API keys. Create one with: pmdata keys create --tier free --name <name>');
        return 0;
      }
      out(
        table([
          ['ID', 'NAME', 'TIER', 'RATE/S', 'STATUS', 'KEY', 'CREATED'],
          ...keys.map((k) => [
            k.id,
            k.name,
            PLANS[k.tier].label,
            String(rateFor(k.tier, k.rate)),
            k.status,
            `${k.prefix}…`,
            k.createdAt,
          ]),
        ]).join('\n'),
      );
      return 0;
    }
    case 'revoke': {
      const id = positionals[0];
      if (!id) return usageError('revoke needs a key id (see pmdata keys list)');
      const r = await store.revoke(id);
      if (!r) {
        err(`No API key with id ${id}`);
        return 1;
      }
      out(`Revoked key ${r.id} (${r.name}); requests with it now answer 401.`);
      return 0;
    }
    case 'usage': {
      const month = values.month ?? monthOf(Date.now());
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) return usageError('--month must be YYYY-MM');
      let keys: ApiKeyRecord[];
      if (positionals[0]) {
        const one = await store.get(positionals[0]);
        if (!one) {
          err(`No API key with id ${positionals[0]}`);
          return 1;
        }
        keys = [one];
      } else {
        keys = await store.list();
      }
      const rows = [
        [
          'ID',
          'NAME',
          'TIER',
          'METERED',
          'QUOTA',
          'OVERAGE',
          'OVERAGE_USD',
          'FREE',
          'THROTTLED',
          'REFUSED_OVER_QUOTA',
          'TICK_REQUESTS',
          'TICK_GIB',
          'TICK_USD',
        ],
      ];
      for (const k of keys) {
        const u = await store.usage(k.id, month);
        rows.push([
          k.id,
          k.name,
          PLANS[k.tier].label,
          count(u.metered),
          u.quota === null ? 'unlimited' : count(u.quota),
          count(u.overage),
          usd(u.overageUsd),
          count(u.free),
          count(u.throttled),
          count(u.overQuota),
          count(u.tickRequests),
          (u.tickBytes / 2 ** 30).toFixed(6),
          `$${u.tickUsd.toFixed(6)}`,
        ]);
      }
      const prices = TIERS.filter((t) => PLANS[t].overageUsdPer100k !== null)
        .map((t) => `${PLANS[t].label} ${usd(PLANS[t].overageUsdPer100k!)}`)
        .join(', ');
      out(`Usage for ${month} (UTC). Overage per 100,000 metered requests above the quota: ${prices}.`);
      out(
        `Tick datasets (/v2/data/ticks): ${usd(TICKS_USD_PER_GIB)} per GiB issued, no minimum; TICK_REQUESTS counts re-issues within 24 h, which are free.`,
      );
      out(table(rows).join('\n'));
      return 0;
    }
    default:
      return usageError(`Unknown keys command "${sub}"`);
  }
}

const OPTIONS = {
  tier: { type: 'string' },
  name: { type: 'string' },
  rate: { type: 'string' },
  stream: { type: 'string', multiple: true },
  month: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;
