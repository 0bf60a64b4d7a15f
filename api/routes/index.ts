/**
 * Every data route module of the API. A module is a Fastify plugin taking the route context; add a line
 * here to serve a new one (its access rule comes from api/access.ts, its OpenAPI from its schemas).
 * How a list endpoint is built: docs/api.md, "How a list endpoint is built".
 */
import type { RoutePlugin } from './context.ts';
import { alphaActivityRoutes } from './v2/alpha/activity.ts';
import { alphaTradesRoutes } from './v2/alpha/trades.ts';

export type { RouteContext, RoutePlugin } from './context.ts';

export const DATA_ROUTES: RoutePlugin[] = [alphaTradesRoutes, alphaActivityRoutes];
