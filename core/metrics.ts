/**
 * pmdata's Prometheus metrics (prom-client): one registry for the process; every metric is declared
 * where its subsystem lives and registered here. Names and labels are fixed and bounded (docs/operations.md).
 */
import { Registry } from 'prom-client';

/** The process's metric registry, exposed at `/metrics`. */
export const registry = new Registry();
