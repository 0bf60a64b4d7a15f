/**
 * Venue epsilon's settings (docs/configuration.md): its upstream's base URL. What every REST venue shares
 * (poll interval, HTTP timeout, reconciliation) is ingest/rest/config.ts. Read with `epsilonConfig.of(config)`.
 */
import { defineConfigSection, url } from '../../../core/config.ts';

export const epsilonConfig = defineConfigSection('epsilon', {
  /** Base URL of venue epsilon's REST API (schemas/upstream/epsilon-api.yaml); the demo points it at the sim's replica. */
  apiUrl: {
    env: 'EPSILON_API_URL',
    default: 'https://api.probable.markets',
    form: 'http(s) URL',
    parse: url('http:', 'https:'),
  },
});
