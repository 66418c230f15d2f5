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
