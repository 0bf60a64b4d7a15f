/**
 * What every data route module receives: the dependency bag, the cursor codec and the market slug seam.
 * Its own module so that the resources (api/resources/), the route modules and the query layer
 * (api/queries/) can all import it without a type cycle.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../core/deps.ts';
import type { MarketSlugResolver } from './markets.ts';
import type { CursorCodec } from './pagination.ts';
import type { TokenConditions } from './queries/alpha/tokens.ts';

export interface RouteContext {
  deps: Deps;
  cursors: CursorCodec;
  markets: MarketSlugResolver;
  /**
   * A token map the process shares with its streaming service (`pmdata up`, the demo), started and stopped
   * by its owner; absent, the app makes its own (api/queries/alpha/tokens.ts `tokenConditionsOf`).
   */
  tokens?: TokenConditions;
  /**
   * The server secret (api/secret.ts) the app signs with: cursors, and the tick part URLs (each use derives
   * a key of its own). Absent: `resolveApiSecret(deps.config)`.
   */
  secret?: string;
}

/** A data route module: a Fastify plugin taking the route context. */
export type RoutePlugin = (app: FastifyInstance, ctx: RouteContext) => Promise<void>;
