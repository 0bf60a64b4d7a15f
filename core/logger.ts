/**
 * Structured logs: pino, snake_case fields, short past-tense messages. Modules take a logger in their
 * dependency bag and make a child per job or request.
 *
 * Format (LOG_FORMAT, or `--log-format` on the command line): `json` writes one JSON object a line;
 * `pretty` one human line (`12:04:05 INFO  demo: Started redis-server port=6379`); `auto`, the default,
 * is pretty when stderr is a terminal and JSON otherwise (files, pipes, log collectors).
 */
import pino from 'pino';

export type Logger = pino.Logger;

export const LOG_FORMATS = ['auto', 'pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Whether logs come out as human lines: `pretty`, or `auto` on a terminal. */
export function prettyLogs(format: string | undefined, isTTY = Boolean(process.stderr.isTTY)): boolean {
  return format === 'pretty' || (format !== 'json' && isTTY);
}

export interface LoggerOptions {
  level: string;
  name?: string;
  /** auto | pretty | json (default: LOG_FORMAT, else auto). */
  format?: string;
  /**
   * Also write every line at `level`, as JSON, to this file (its directory is created); stderr then gets
   * only `stderrLevel` and above. The demo keeps its terminal for its own messages this way.
   */
  file?: string;
  stderrLevel?: string;
}

/** Logs go to stderr, so a command's own output on stdout stays clean to read or pipe. */
export function createLogger(options: LoggerOptions): Logger {
  const opts: pino.LoggerOptions = {
    name: options.name ?? 'pmdata',
    level: options.level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  const color = Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
  const stderr: pino.DestinationStream = prettyLogs(options.format ?? process.env.LOG_FORMAT)
    ? { write: (line: string) => process.stderr.write(formatLine(line, color)) }
    : pino.destination({ fd: 2, sync: false });
  if (!options.file) return pino(opts, stderr);
  const fileStream = pino.destination({ dest: options.file, mkdir: true, sync: false });
  if (options.stderrLevel === 'silent') return pino(opts, fileStream);
  const levels = pino.levels.values;
  const stderrLevel = (options.stderrLevel ?? options.level) as pino.Level;
  const fileLevel = options.level as pino.Level;
  // The logger passes what either stream wants; each stream keeps its own level.
  const lowest = [stderrLevel, fileLevel].sort((a, b) => (levels[a] ?? 100) - (levels[b] ?? 100))[0]!;
  return pino(
    { ...opts, level: lowest },
    pino.multistream([
      { level: stderrLevel, stream: stderr },
      { level: fileLevel, stream: fileStream },
    ]),
  );
}

const LEVEL_COLORS: Record<string, string> = {
  fatal: '\x1b[41m',
  error: '\x1b[31m',
  warn: '\x1b[33m',
  info: '\x1b[32m',
  debug: '\x1b[2m',
  trace: '\x1b[2m',
};
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg']);

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (v && typeof v === 'object' && typeof (v as { message?: unknown }).message === 'string') {
    return JSON.stringify((v as { message: string }).message);
  }
  return JSON.stringify(v) ?? String(v);
}

/**
 * One JSON log line as a human line: local time, level, logger name, message, then the fields as
 * key=value; an error's stack follows on its own lines at error and fatal.
 */
export function formatLine(json: string, color = false): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = String(rec.level ?? 'info');
  const t = new Date(typeof rec.time === 'string' || typeof rec.time === 'number' ? rec.time : Date.now());
  const hms = [t.getHours(), t.getMinutes(), t.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  const label = level.toUpperCase().padEnd(5);
  const shown = color ? `${LEVEL_COLORS[level] ?? ''}${label}\x1b[0m` : label;
  const fields = Object.entries(rec)
    .filter(([k, v]) => !OMITTED.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${value(v)}`);
  const head = `${hms} ${shown} ${rec.name ? `${String(rec.name)}: ` : ''}${String(rec.msg ?? '')}`;
  let out = fields.length ? `${head}  ${fields.join(' ')}` : head;
  const stack = (rec.err as { stack?: unknown } | undefined)?.stack;
  if ((level === 'error' || level === 'fatal') && typeof stack === 'string') {
    out += `\n${stack.replace(/^/gm, '    ')}`;
  }
  return `${out}\n`;
}
