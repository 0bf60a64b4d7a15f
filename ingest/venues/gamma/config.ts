/**
 * Venue gamma's settings (docs/configuration.md): its upstream's base URL. What every REST venue shares
 * (poll interval, HTTP timeout, reconciliation) is ingest/rest/config.ts. Read with `gammaConfig.of(config)`.
 */
import { defineConfigSection, url } from '../../../core/config.ts';

export const gammaConfig = defineConfigSection('gamma', {
  /** Base URL of venue gamma's REST API (schemas/upstream/gamma-api.yaml); the demo points it at the sim's replica. */
  apiUrl: {
    env: 'GAMMA_API_URL',
    default: 'https://api.limitless.exchange',
    form: 'http(s) URL',
    parse: url('http:', 'https:'),
  },
});
