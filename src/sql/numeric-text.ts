/**
 * The number text PARSE_NUMERIC and PARSE_BIGNUMERIC read (conversion_functions.md): a sign before
 * or after the number (one at most), spaces anywhere but between digits, commas among the digits
 * before the point, an exponent. Groups: 1 leading sign, 2 integer digits and commas, 3 fraction
 * digits, 4 exponent, 5 trailing sign.
 */
export const NUMERIC_TEXT = /^\s*([+-]?)\s*((?:[\d,]*\d[\d,]*)?)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*([+-]?)\s*$/;

/** The plain number (`-1234.5e3`) from the groups, as SQL text built with the engine's concatenation. */
export function numericText(group: (index: number) => string, concat: (parts: string[]) => string): string {
  const sign = `CASE WHEN ${group(1)} = '-' OR ${group(5)} = '-' THEN '-' ELSE '' END`;
  const integer = `replace(${group(2)}, ',', '')`;
  const fraction = group(3);
  const exponent = `CASE WHEN ${group(4)} = '' THEN '' ELSE 'e' || ${group(4)} END`;
  return concat([sign, `CASE WHEN ${integer} = '' THEN '0' ELSE ${integer} END`, `CASE WHEN ${fraction} = '' THEN '' ELSE '.' || ${fraction} END`, exponent]);
}
