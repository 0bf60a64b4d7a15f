/** How a long-running command (backfill, follow) is asked to stop. */
import os from 'node:os';

/** A command's stop: asked by `signal`, by the process's SIGINT/SIGTERM, or by the command. */
export interface Stop {
  readonly signal: AbortSignal;
  abort(): void;
  /** What asked for the stop: the signal's name, or "stop requested". */
  reason(): string;
  /** 128 + the signal's number (130 for SIGINT, and for a stop without a signal). */
  readonly exitCode: number;
  dispose(): void;
}

/**
 * Stops on `signal` or, without one, on the process's first SIGINT/SIGTERM (`onStop` says what happens
 * next); a second signal exits at once, through the process's exit handlers (an embedded redis-server
 * is stopped by them).
 */
export function stopOnSignals(signal: AbortSignal | undefined, onStop?: () => void): Stop {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const abort = () => {
    if (controller.signal.aborted) return;
    controller.abort();
    onStop?.();
  };
  const onSignal = (s: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(128 + os.constants.signals[s]);
    received = s;
    abort();
  };
  if (signal) {
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  } else {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  return {
    signal: controller.signal,
    abort,
    reason: () => received ?? 'stop requested',
    get exitCode() {
      return 128 + os.constants.signals[received ?? 'SIGINT'];
    },
    dispose() {
      signal?.removeEventListener('abort', abort);
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    },
  };
}
