/** Query results carry TIMESTAMP values as microseconds since the epoch. */
export const dateFromMicros = (micros: number) => new Date(micros / 1000);

export function timeText(micros: number | null | undefined): string {
  if (micros === null || micros === undefined) return '—';
  const date = dateFromMicros(micros);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

export function agoText(micros: number | null | undefined, now = Date.now()): string {
  if (micros === null || micros === undefined) return 'never';
  const seconds = Math.round((now - micros / 1000) / 1000);
  if (seconds < 0) return 'in the future';
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86400)}d ago`;
}

export const countText = (n: number) => n.toLocaleString('en-US');

/** A value for a table cell: records and lists as compact JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** 16-digit integers are how TIMESTAMP columns come back; ISO strings are DATETIME columns. */
export function timeValue(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1e15 && value < 1e17) return value / 1e6;
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) {
    const millis = Date.parse(value.includes('Z') || /[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value}Z`);
    return Number.isNaN(millis) ? undefined : millis / 1000;
  }
  return undefined;
}
