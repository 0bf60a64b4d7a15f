/**
 * What every data route module receives: the dependency bag, the cursor codec and the market slug seam.
 * Its own module so that the route list (routes/index.ts), the route modules and the query layer
 * (api/queries/) can all import it without a type cycle.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../core/deps.ts';
import type { MarketSlugResolver } from './markets.ts';
import type { CursorCodec } from './pagination.ts';

export interface RouteContext {
  deps: Deps;
  cursors: CursorCodec;
  markets: MarketSlugResolver;
}

/** A data route module: a Fastify plugin taking the route context. */
export type RoutePlugin = (app: FastifyInstance, ctx: RouteContext) => Promise<void>;
