/**
 * Structured logs: pino, snake_case fields, short past-tense messages. Modules take a logger in their
 * dependency bag and make a child per job or request.
 */
import pino from 'pino';

export type Logger = pino.Logger;

/** Logs go to stderr, so a command's own output on stdout stays clean to read or pipe. */
export function createLogger(options: { level: string; name?: string }): Logger {
  return pino(
    {
      name: options.name ?? 'pmdata',
      level: options.level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
