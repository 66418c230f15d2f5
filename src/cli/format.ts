/** Terminal output: aligned tables and readable times. */

const MAX_CELL = 60;

export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > MAX_CELL ? `${oneLine.slice(0, MAX_CELL - 1)}…` : oneLine;
}

/** Rows as an aligned table; columns are the union of the rows' keys in first-seen order. */
export function table(rows: ReadonlyArray<Record<string, unknown>>, columns?: string[]): string {
  const names = columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
  if (names.length === 0) return '(no rows)';
  const cells = rows.map((row) => names.map((name) => cellText(row[name])));
  const widths = names.map((name, index) => Math.max(name.length, ...cells.map((line) => line[index]!.length)));
  const render = (line: string[]) => line.map((cell, index) => cell.padEnd(widths[index]!)).join('  ').trimEnd();
  return [render(names), render(widths.map((width) => '-'.repeat(width))), ...cells.map(render)].join('\n');
}

/** Microseconds since the epoch (how timestamps come back) as ISO 8601. */
export function isoFromMicros(micros: unknown): string {
  const value = Number(micros);
  return Number.isFinite(value) && value > 0 ? new Date(value / 1000).toISOString() : '';
}

/** 2000-01-01 and 2100-01-01 in microseconds: the times a log query returns lie between. */
const MIN_MICROS = 946_684_800_000_000;
const MAX_MICROS = 4_102_444_800_000_000;

/**
 * Columns that hold TIMESTAMP values: replies carry them as integer microseconds and no types,
 * so a column counts when every value it has is an integer microsecond time of this century.
 */
export function timestampColumns(rows: ReadonlyArray<Record<string, unknown>>): string[] {
  const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const isMicros = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= MIN_MICROS && value < MAX_MICROS;
  return names.filter((name) => rows.some((row) => row[name] != null) && rows.every((row) => row[name] == null || isMicros(row[name])));
}
