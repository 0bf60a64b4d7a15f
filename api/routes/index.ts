/**
 * The type a plain route module takes (a Fastify plugin given the route context), for the route modules of
 * tests and embedders (`extraRoutes`). The API's data routes are resources: api/resources/index.ts.
 */
export type { RouteContext, RoutePlugin } from '../context.ts';
