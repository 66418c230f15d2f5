/**
 * The service log's two forms (SAWMILL_LOG_FORMAT): `json`, pino's one JSON object a line, for
 * machines; `pretty`, one line a person reads: time, level, message, then the other fields as
 * key=value. Written here rather than taken from pino-pretty, whose default output spreads a line's
 * fields over several lines and which would bring a dozen packages for forty lines of formatting.
 */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
/** SAWMILL_LOG_LEVEL: pino's levels, and `silent` (nothing at all). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, or that a request's line already says in its message. */
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'req', 'res', 'responseTime', 'err']);

const valueText = (value: unknown) => (typeof value === 'string' && value !== '' && !/[\s"=]/.test(value) ? value : JSON.stringify(value));

/** One pino JSON line as a line for people; a line that is not pino's JSON is passed on as it is. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : '';
  const level = (LEVELS[entry.level as number] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !SHOWN_ELSEWHERE.has(key))
    .map(([key, value]) => ` ${key}=${valueText(value)}`)
    .join('');
  const err = entry.err as { type?: string; message?: string; stack?: string } | undefined;
  // An error's stack is what a person needs from it: on the lines below, indented.
  const error = err ? ` error=${valueText(`${err.type ?? 'Error'}: ${err.message ?? ''}`)}${err.stack ? `\n  ${err.stack.split('\n').slice(1).map((line) => line.trim()).join('\n  ')}` : ''}` : '';
  return `${time} ${level} ${String(entry.msg ?? '')}${fields}${error}\n`;
}

/** A pino destination that writes `pretty` lines to `out` (stdout), synchronously as pino's own does. */
export function prettyDestination(out: { write(text: string): unknown } = process.stdout) {
  return { write: (line: string) => void out.write(prettyLine(line)) };
}
