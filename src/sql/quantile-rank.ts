/**
 * Where APPROX_QUANTILES' boundaries fall in the sorted values, when an engine picks them itself:
 * the k/n quantile of m values is the ceil(m·k/n)-th (1-based, at least the first), as DuckDB's
 * quantile_disc and ClickHouse's quantileGK place it. Computed on integers, so that m·k/n does not
 * land just above a whole number in floating point.
 */

/** The fraction k/n as integers (it was computed as k / n, n up to a million). */
export function asRatio(fraction: number): [numerator: number, denominator: number] {
  for (let denominator = 1; denominator <= 1_000_000; denominator++) {
    const numerator = Math.round(fraction * denominator);
    if (numerator / denominator === fraction) return [numerator, denominator];
  }
  throw new Error(`quantile fraction ${fraction} is not k/n`);
}

/** The 1-based position of the quantile `fraction` among `count` sorted values, as SQL (`intDiv` is the engine's integer division). */
export function quantilePosition(count: string, fraction: number, intDiv: (a: string, b: string) => string): string {
  const [numerator, denominator] = asRatio(fraction);
  return `greatest(${intDiv(`${count} * ${numerator} + ${denominator - 1}`, String(denominator))}, 1)`;
}
