/**
 * The stream's metrics (core/metrics.ts) with their label children bound once per channel, tier and
 * reason: the fan-out counts each message's sends and drops once per channel, not per delivery.
 */
import {
  type DisconnectReason,
  streamConnections,
  streamDisconnects,
  streamEventsDropped,
  streamEventsSent,
  streamSubscriptions,
} from '../../core/metrics.ts';

type Inc = { inc(v?: number): void };
type IncDec = Inc & { dec(v?: number): void };

function bound<T>(make: (label: string) => T): (label: string) => T {
  const children = new Map<string, T>();
  return (label) => {
    let c = children.get(label);
    if (!c) {
      c = make(label);
      children.set(label, c);
    }
    return c;
  };
}

export const streamMetrics = {
  connections: bound<IncDec>((tier) => streamConnections.labels(tier)),
  subscriptions: bound<IncDec>((channel) => streamSubscriptions.labels(channel)),
  sent: bound<Inc>((channel) => streamEventsSent.labels(channel)),
  dropped: bound<Inc>((channel) => streamEventsDropped.labels(channel)),
  disconnect: (reason: DisconnectReason) => streamDisconnects.labels(reason).inc(),
};
