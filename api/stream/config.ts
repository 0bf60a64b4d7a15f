/**
 * The streaming service's settings, read from the loaded configuration (core/config.ts declares the
 * STREAM_* variables; docs/configuration.md documents them). Tests and benchmarks build their own with
 * `streamSettings(config, overrides)` (short timers, small buffers).
 */
import type { Config } from '../../core/config.ts';

export interface StreamSettings {
  /** The `pmdata stream` role's port. */
  port: number;
  /** Connections per process; more are refused with 503. */
  maxConnections: number;
  /** Send-buffer bytes from which events are dropped. */
  dropBytes: number;
  /** Send-buffer bytes at which the connection is closed (4002). */
  terminateBytes: number;
  pingIntervalMs: number;
  /** Without a pong for this long: closed (4001). */
  pongTimeoutMs: number;
  /** Without a subscription for this long: closed (4000). */
  idleTimeoutMs: number;
  /** How often connected keys are checked for revocation (4003). */
  keyCheckMs: number;
}

export function streamSettings(config: Config, over: Partial<StreamSettings> = {}): StreamSettings {
  return {
    port: config.streamPort,
    maxConnections: config.streamMaxConnections,
    dropBytes: config.streamDropBytes,
    terminateBytes: config.streamTerminateBytes,
    pingIntervalMs: config.streamPingIntervalMs,
    pongTimeoutMs: config.streamPongTimeoutMs,
    idleTimeoutMs: config.streamIdleTimeoutMs,
    keyCheckMs: config.streamKeyCheckMs,
    ...over,
  };
}
