/**
 * Venue delta's settings (docs/configuration.md): its upstream's base URL. What every REST venue shares
 * (poll interval, HTTP timeout, reconciliation) is ingest/rest/config.ts. Read with `deltaConfig.of(config)`.
 */
import { defineConfigSection, url } from '../../../core/config.ts';

export const deltaConfig = defineConfigSection('delta', {
  /** Base URL of venue delta's REST API (schemas/upstream/delta-api.yaml); the demo points it at the sim's replica. */
  apiUrl: {
    env: 'DELTA_API_URL',
    default: 'https://proxy.opinion.trade:8443/openapi',
    form: 'http(s) URL',
    parse: url('http:', 'https:'),
  },
});
