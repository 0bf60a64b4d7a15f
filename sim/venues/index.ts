/**
 * Starts one HTTP server per venue upstream on free 127.0.0.1 ports, all reading one world (catalog +
 * live state). Nothing here knows about ingest: the replicas speak the upstream formats only.
 */
import type { Catalog } from '../world/catalog.ts';
import type { WorldState } from '../world/state.ts';
import { alphaBookRoutes } from './alpha/book.ts';
import { alphaMetadataRoutes } from './alpha/metadata.ts';
import { betaRoutes } from './beta/index.ts';
import { betaSocket } from './beta/socket.ts';
import { deltaRoutes } from './delta/index.ts';
import { epsilonRoutes } from './epsilon/index.ts';
import { createFaultController, type FaultController, type ReplicaName } from './faults.ts';
import { gammaRoutes } from './gamma/index.ts';
import { type ReplicaServer, type Route, startReplicaServer } from './http.ts';

export type {
  Fault,
  FaultController,
  FaultKind,
  FaultRates,
  ReplicaName,
  SocketFaultKind,
} from './faults.ts';
export { REPLICA_NAMES } from './faults.ts';

export interface ReplicaUrls {
  alpha_metadata: string;
  alpha_book: string;
  beta: string;
  gamma: string;
  delta: string;
  epsilon: string;
}

export interface Replicas {
  urls: ReplicaUrls;
  faults: FaultController;
  close(): Promise<void>;
}

export interface StartReplicasOptions {
  catalog: Catalog;
  state: WorldState;
  /** A fault controller to share (default: a new one seeded from the catalog seed). */
  faults?: FaultController;
}

const ROUTES: Record<ReplicaName, (catalog: Catalog, state: WorldState) => Route[]> = {
  alpha_metadata: alphaMetadataRoutes,
  alpha_book: alphaBookRoutes,
  beta: betaRoutes,
  gamma: gammaRoutes,
  delta: deltaRoutes,
  epsilon: epsilonRoutes,
};

/** Error bodies in each upstream's own style. */
const ERROR_BODIES: Partial<Record<ReplicaName, { rateLimit: unknown; serverError: unknown }>> = {
  alpha_metadata: {
    rateLimit: { error: 'Too Many Requests' },
    serverError: { type: 'internal error', error: 'cannot get the information' },
  },
  alpha_book: { rateLimit: { error: 'Too Many Requests' }, serverError: { error: 'Internal server error' } },
  beta: {
    rateLimit: { error: { code: 'too_many_requests', message: 'too many requests', service: 'exchange' } },
    serverError: {
      error: { code: 'internal_server_error', message: 'internal server error', service: 'exchange' },
    },
  },
  gamma: {
    rateLimit: { message: 'ThrottlerException: Too Many Requests', statusCode: 429 },
    serverError: { message: 'Internal server error', statusCode: 500 },
  },
  delta: {
    rateLimit: { code: 429, msg: 'too many requests', result: null },
    serverError: { code: 500, msg: 'internal error', result: null },
  },
  epsilon: { rateLimit: { detail: 'Too Many Requests' }, serverError: { detail: 'Internal Server Error' } },
};

export async function startReplicas(options: StartReplicasOptions): Promise<Replicas> {
  const { catalog, state } = options;
  const faults = options.faults ?? createFaultController(catalog.seed);
  const names = Object.keys(ROUTES) as ReplicaName[];
  const servers: ReplicaServer[] = [];
  try {
    for (const name of names) {
      const bodies = ERROR_BODIES[name];
      servers.push(
        await startReplicaServer({
          name,
          routes: ROUTES[name](catalog, state),
          faults,
          rateLimitBody: bodies?.rateLimit,
          serverErrorBody: bodies?.serverError,
          clock: () => state.now(),
          ...(name === 'beta' ? { attach: betaSocket(catalog, state, faults) } : {}),
        }),
      );
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  const url = (n: ReplicaName) => (servers.find((s) => s.name === n) as ReplicaServer).url;
  return {
    urls: {
      alpha_metadata: url('alpha_metadata'),
      alpha_book: url('alpha_book'),
      beta: url('beta'),
      gamma: url('gamma'),
      delta: url('delta'),
      epsilon: url('epsilon'),
    },
    faults,
    close: async () => {
      await Promise.all(servers.map((s) => s.close()));
    },
  };
}
