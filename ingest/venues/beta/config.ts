/**
 * Venue beta's settings (docs/configuration.md): its upstream's base URL and how often its trades are
 * polled. What every REST venue shares (poll interval, HTTP timeout, reconciliation) is
 * ingest/rest/config.ts. Read with `betaConfig.of(config)`.
 */
import { defineConfigSection, integer, optional, text, url } from '../../../core/config.ts';

export const betaConfig = defineConfigSection('beta', {
  /** Base URL of venue beta's REST API (schemas/upstream/beta-api.yaml); the demo points it at the sim's replica. */
  apiUrl: {
    env: 'BETA_API_URL',
    default: 'https://external-api.kalshi.com/trade-api/v2',
    form: 'http(s) URL',
    parse: url('http:', 'https:'),
  },
  /** Seconds between two polls of beta's trades (newest first, down to the newest stored trade). */
  tradesPollS: {
    env: 'BETA_TRADES_POLL_S',
    default: '10',
    form: 'an integer 1..86400 (seconds)',
    parse: integer(1, 86_400),
  },
  /** beta's WebSocket (`/trade-api/ws/v2`), read by the book feed (ingest/venues/beta/feed.ts); the demo points it at the sim's replica. */
  wsUrl: {
    env: 'BETA_WS_URL',
    default: 'wss://external-api.kalshi.com/trade-api/ws/v2',
    form: 'ws(s) URL',
    parse: url('ws:', 'wss:'),
  },
  /** The API key id the book feed connects with (KALSHI-ACCESS-KEY); unset: `pmdata` (a replica checks no key). */
  apiKeyId: {
    env: 'BETA_API_KEY_ID',
    default: undefined,
    form: 'a key id, or unset',
    parse: optional(text),
  },
  /** A PEM file of the key's RSA private key: the feed signs its connection with it (RSA-PSS); unset: unsigned. */
  privateKeyFile: {
    env: 'BETA_PRIVATE_KEY_FILE',
    default: undefined,
    form: 'a file path, or unset',
    parse: optional(text),
  },
});
