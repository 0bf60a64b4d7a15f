/**
 * Every data route module of the API. A module is a Fastify plugin taking the route context; add a line
 * here to serve a new one (its access rule comes from api/access.ts, its OpenAPI from its schemas).
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import type { CursorCodec } from '../pagination.ts';

export interface RouteContext {
  deps: Deps;
  cursors: CursorCodec;
}

export type RoutePlugin = (app: FastifyInstance, ctx: RouteContext) => Promise<void>;

export const DATA_ROUTES: RoutePlugin[] = [];
