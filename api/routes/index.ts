/**
 * Every data route module of the API. A module is a Fastify plugin taking the route context; add a line
 * here to serve a new one (its access rule comes from api/access.ts, its OpenAPI from its schemas).
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import type { MarketSlugResolver } from '../markets.ts';
import type { CursorCodec } from '../pagination.ts';
import { alphaActivityRoutes } from './v2/alpha/activity.ts';
import { alphaTradesRoutes } from './v2/alpha/trades.ts';

export interface RouteContext {
  deps: Deps;
  cursors: CursorCodec;
  markets: MarketSlugResolver;
}

export type RoutePlugin = (app: FastifyInstance, ctx: RouteContext) => Promise<void>;

export const DATA_ROUTES: RoutePlugin[] = [alphaTradesRoutes, alphaActivityRoutes];
