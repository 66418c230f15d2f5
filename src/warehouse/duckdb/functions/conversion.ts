/** DuckDB renderings of BigQuery's conversion functions (CAST is printed by sql-generator.ts). */

import { arg, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { CONVERSION_FUNCTIONS } from '../../../sql/functions/families/conversion.ts';
import { NUMERIC_TEXT, numericText } from '../../../sql/numeric-text.ts';
import { quoted as quoteString } from './shared.ts';

/**
 * PARSE_NUMERIC / PARSE_BIGNUMERIC: BigQuery's looser number text (spaces around the sign, a
 * trailing sign, commas before the point), checked against its rules and rewritten into the
 * plain form DuckDB's cast reads; a text that breaks them is BigQuery's error, NULL under SAFE.
 */
function parseNumber(name: string) {
  return (call: CallParts) => {
    const input = arg(call, 0);
    const pattern = quoteString(NUMERIC_TEXT.source);
    const group = (index: number) => `regexp_extract(${input}, ${pattern}, ${index})`;
    const plain = numericText((index) => group(index), (parts) => parts.join(' || '));
    const failure = call.safe ? 'NULL' : `error('Invalid ${name} value: ' || ${input})`;
    return `(CASE WHEN ${input} IS NULL THEN NULL WHEN NOT regexp_full_match(${input}, ${pattern}) OR (${group(1)} <> '' AND ${group(5)} <> '') OR (${group(2)} = '' AND ${group(3)} = '') THEN ${failure} ELSE CAST(${plain} AS DECIMAL(38, 9)) END)`;
  };
}

export const CONVERSION: Renderings<typeof CONVERSION_FUNCTIONS> = {
  parse_bignumeric: parseNumber('BIGNUMERIC'),
  parse_numeric: parseNumber('NUMERIC'),
};
