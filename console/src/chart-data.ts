/** Shaping data for the charts (pure functions, tested without a browser). */

/** At most this many empty points are added to a series: a chart is not a calendar. */
const MAX_GAP_POINTS = 2_000;

/**
 * Rows of a time-bucketed query have no row for an empty bucket. Lines drawn straight across
 * such a hole would show activity that did not happen: a null one step after the last row
 * before each hole breaks the line there. The step is the smallest distance between rows.
 */
export function withGaps(times: number[], series: Array<Array<number | null>>): { times: number[]; series: Array<Array<number | null>> } {
  let step = Infinity;
  for (let i = 1; i < times.length; i++) if (times[i]! > times[i - 1]!) step = Math.min(step, times[i]! - times[i - 1]!);
  if (!Number.isFinite(step)) return { times, series };
  // Only rows on a regular grid (every distance a whole number of steps) are buckets with holes;
  // times at random (one row per event) are drawn as they are.
  const onGrid = times.every((time, i) => i === 0 || Math.abs((time - times[i - 1]!) / step - Math.round((time - times[i - 1]!) / step)) < 1e-6);
  if (!onGrid) return { times, series };
  const outTimes: number[] = [];
  const outSeries: Array<Array<number | null>> = series.map(() => []);
  let added = 0;
  for (let i = 0; i < times.length; i++) {
    if (i > 0 && times[i]! - times[i - 1]! > step * 1.5 && added < MAX_GAP_POINTS) {
      outTimes.push(times[i - 1]! + step);
      for (const values of outSeries) values.push(null);
      added++;
    }
    outTimes.push(times[i]!);
    series.forEach((values, index) => outSeries[index]!.push(values[i] ?? null));
  }
  return { times: outTimes, series: outSeries };
}

/** The zone the charts and tables show times in, e.g. "Asia/Kolkata, UTC+05:30". */
export function zoneText(date = new Date()): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? '-' : '+';
  const offset = `UTC${sign}${String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0')}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
  const name = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return name ? `${name}, ${offset}` : offset;
}
