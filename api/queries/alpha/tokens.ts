/**
 * token_id → (condition_id, outcome_index) in process, for fills ingested before their token's condition
 * was known (alpha_fills.condition_id = ''): the trades page maps them without a second query.
 *
 * The map mirrors `alpha_tokens` and is refreshed in the background, never on a request's path: one
 * full load when the app gets ready, then every `refreshMs` (default 1 s) a look at the table's active
 * parts (system.parts: metadata only) and, when they changed, a read of the rows at or after the last
 * seen block minus `reorgBlocks` (rows a reorg rewrote below the newest block seen are read again), in
 * (block_number, log_index, token_id) batches. A token's condition never changes, so rows are only
 * ever added; a row a reorg removed leaves a mapping no fill refers to. A token the map does not know
 * yet answers as today's lookup did when it found nothing: condition_id null.
 *
 * Bounded: at most `maxTokens` tokens (default 1,000,000), packed as token → condition index and outcome
 * (~125 bytes per token measured with 77-digit token ids, so ~125 MB at the bound); beyond it the oldest
 * tenth (by block) is dropped and those tokens answer as unknown. A warning says so once.
 */
import type { FastifyInstance } from 'fastify';
import type { ClickHouse } from '../../../core/clickhouse/index.ts';
import { expression, fields, select } from '../../../core/clickhouse/table.ts';
import type { Logger } from '../../../core/logger.ts';
import { ALPHA_TOKENS } from '../../../schemas/tables/alpha-chain.ts';
import type { RouteContext } from '../../context.ts';

export interface TokenCondition {
  conditionId: string;
  /** -1 when only a registration (no derivation) taught the token. */
  outcomeIndex: number;
}

export interface TokenConditions {
  /** What the map knows of a token (synchronous: no query). */
  get(tokenId: string): TokenCondition | undefined;
  /** Reads what changed since the last refresh (one at a time: a second call joins the first); rows read. */
  refresh(): Promise<number>;
  /** The first refresh (a failure is logged, not thrown), then one every `refreshMs`. */
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly size: number;
}

export interface TokenConditionsOptions {
  clickhouse: ClickHouse;
  log: Logger;
  refreshMs?: number;
  maxTokens?: number;
  /** Rows per read while catching up (default 100,000). */
  batchRows?: number;
  /** Blocks below the newest seen that every refresh reads again (reorgs; default 128). */
  reorgBlocks?: number;
}

const OUTCOME_BIAS = 128;

/** The active parts of a table: how many, and a hash of their names. */
const PARTS = fields({
  count: expression<string>('toString(count())'),
  names: expression<string>('toString(sipHash64(arraySort(groupArray(name))))'),
});

/** A token's condition and outcome, with its position in the chain (the refresh's keyset). */
const TOKEN_ROW = select(ALPHA_TOKENS, [
  'token_id',
  'condition_id',
  'outcome_index',
  'block_number',
  'log_index',
]);

export function createTokenConditions(o: TokenConditionsOptions): TokenConditions {
  const refreshMs = o.refreshMs ?? 1000;
  const maxTokens = o.maxTokens ?? 1_000_000;
  const batchRows = o.batchRows ?? 100_000;
  const reorgBlocks = o.reorgBlocks ?? 128;
  const { clickhouse, log } = o;

  /** token → condition index × 256 + outcome index + 128. */
  let tokens = new Map<string, number>();
  let conditions: string[] = [];
  let conditionIndex = new Map<string, number>();
  let newestBlock = -1;
  let seenParts = '';
  let warned = false;
  let inFlight: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;

  const outcomeOf = (packed: number) => (packed % 256) - OUTCOME_BIAS;

  function learn(token: string, conditionId: string, outcomeIndex: number): void {
    const prev = tokens.get(token);
    // A registration without an outcome index never overrides a derived one.
    if (prev !== undefined && (outcomeOf(prev) >= 0 || outcomeIndex < 0)) return;
    let c = conditionIndex.get(conditionId);
    if (c === undefined) {
      c = conditions.length;
      conditions.push(conditionId);
      conditionIndex.set(conditionId, c);
    }
    tokens.set(token, c * 256 + outcomeIndex + OUTCOME_BIAS);
    if (prev === undefined && tokens.size > maxTokens) dropOldest();
  }

  /** Drops the oldest tenth of the tokens and the conditions only they used. */
  function dropOldest(): void {
    const drop = Math.max(1, Math.floor(maxTokens / 10));
    const kept = new Map<string, number>();
    const keptConditions: string[] = [];
    const keptIndex = new Map<string, number>();
    let i = 0;
    for (const [token, packed] of tokens) {
      if (i++ < drop) continue;
      const conditionId = conditions[Math.floor(packed / 256)]!;
      let c = keptIndex.get(conditionId);
      if (c === undefined) {
        c = keptConditions.length;
        keptConditions.push(conditionId);
        keptIndex.set(conditionId, c);
      }
      kept.set(token, c * 256 + (packed % 256));
    }
    tokens = kept;
    conditions = keptConditions;
    conditionIndex = keptIndex;
    if (!warned) {
      warned = true;
      log.warn(
        { max_tokens: maxTokens },
        'Dropped the oldest tokens of the token map: they answer as unknown',
      );
    }
  }

  /** The active parts of alpha_tokens; '' when the table has none here (empty, or a Distributed table). */
  async function partsSignature(): Promise<string> {
    const [raw] = await clickhouse.read(
      'api.alpha.tokens.parts',
      `SELECT ${PARTS.sql}
       FROM system.parts WHERE database = {db:String} AND table = 'alpha_tokens' AND active`,
      { db: clickhouse.database },
    );
    const row = raw && PARTS.zip(raw);
    return row && row.count !== '0' ? `${row.count}:${row.names}` : '';
  }

  async function readChanges(): Promise<number> {
    // A server that refuses system.parts to this user: every refresh reads the recent rows instead.
    const parts = await partsSignature().catch(() => '');
    if (parts !== '' && parts === seenParts) return 0;
    let after = { block: String(Math.max(0, newestBlock - reorgBlocks)), log: 0, token: '' };
    let total = 0;
    for (;;) {
      const raw = await clickhouse.read(
        'api.alpha.tokens.refresh',
        `SELECT ${TOKEN_ROW.sql} FROM alpha_tokens
         WHERE (block_number, log_index, token_id) > ({after_block:UInt64}, {after_log:UInt32}, {after_token:String})
         ORDER BY block_number, log_index, token_id
         LIMIT {rows:UInt32}`,
        { after_block: after.block, after_log: after.log, after_token: after.token, rows: batchRows },
      );
      const rows = raw.map(TOKEN_ROW.zip);
      for (const r of rows) learn(r.token_id, r.condition_id, Number(r.outcome_index));
      total += rows.length;
      const last = rows[rows.length - 1];
      if (last) {
        newestBlock = Math.max(newestBlock, Number(last.block_number));
        after = { block: last.block_number, log: Number(last.log_index), token: last.token_id };
      }
      if (rows.length < batchRows) break;
    }
    seenParts = parts;
    return total;
  }

  /** Logged once per run of failures (not once a second while, say, the table is missing). */
  let failing = false;
  function schedule(): void {
    timer = setTimeout(async () => {
      try {
        await map.refresh();
        if (failing) log.info({ tokens: tokens.size }, 'Refreshed the token map again');
        failing = false;
      } catch (err) {
        if (!failing) log.warn({ err: (err as Error).message }, 'Failed to refresh the token map; retrying');
        failing = true;
      }
      if (running) schedule();
    }, refreshMs);
    timer.unref();
  }

  const map: TokenConditions = {
    get(tokenId) {
      const packed = tokens.get(tokenId);
      if (packed === undefined) return undefined;
      return { conditionId: conditions[Math.floor(packed / 256)]!, outcomeIndex: outcomeOf(packed) };
    },
    refresh() {
      inFlight ??= readChanges().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
    async start() {
      if (running) return;
      running = true;
      const started = performance.now();
      try {
        const rows = await map.refresh();
        log.info(
          { tokens: tokens.size, rows, ms: Math.round(performance.now() - started) },
          'Loaded token map',
        );
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'Failed to load the token map; retrying in the background');
        failing = true;
      }
      if (running) schedule();
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await inFlight?.catch(() => undefined);
    },
    get size() {
      return tokens.size;
    },
  };
  return map;
}

const perApp = new WeakMap<RouteContext, TokenConditions>();

/**
 * The app's token map (one per route context, shared by every route that needs it): the process's shared
 * one when the context carries it (its owner starts and stops it), else one of the app's own, loaded when
 * the app gets ready and stopped when it closes.
 */
export function tokenConditionsOf(scope: FastifyInstance, ctx: RouteContext): TokenConditions {
  if (ctx.tokens) return ctx.tokens;
  let map = perApp.get(ctx);
  if (!map) {
    const m = createTokenConditions({ clickhouse: ctx.deps.clickhouse, log: ctx.deps.log });
    scope.addHook('onReady', () => m.start());
    scope.addHook('onClose', () => m.stop());
    perApp.set(ctx, m);
    map = m;
  }
  return map;
}
