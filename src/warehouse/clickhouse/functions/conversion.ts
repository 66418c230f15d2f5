/** ClickHouse renderings of BigQuery's conversion functions (CAST is printed by sql-generator.ts). */

import { arg, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { CONVERSION_FUNCTIONS } from '../../../sql/functions/families/conversion.ts';
import { NUMERIC_TEXT, numericText } from '../../../sql/numeric-text.ts';
import { quoted as quoteString, raiseWhere } from './shared.ts';

/** PARSE_NUMERIC / PARSE_BIGNUMERIC: BigQuery's looser number text checked and rewritten (see numeric-text.ts). */
function parseNumber(name: string, type: string) {
  return (call: CallParts) => {
    const input = arg(call, 0);
    const pattern = quoteString(NUMERIC_TEXT.source);
    const groups = `extractGroups(assumeNotNull(${input}), ${pattern})`;
    const group = (index: number) => `__number[${index}]`;
    const plain = numericText(group, (parts) => `concat(${parts.join(', ')})`);
    const invalid = `NOT match(assumeNotNull(${input}), ${pattern}) OR (${group(1)} != '' AND ${group(5)} != '') OR (${group(2)} = '' AND ${group(3)} = '')`;
    const value = `arrayMap(__number -> if(${invalid}, ${call.safe ? 'NULL' : raiseWhere(invalid, `Invalid ${name} value`)}, ${type.replace('$', plain)}), [${groups}])[1]`;
    return `if(isNull(${input}), NULL, ${value})`;
  };
}

export const CONVERSION: Renderings<typeof CONVERSION_FUNCTIONS> = {
  parse_bignumeric: parseNumber('BIGNUMERIC', 'toDecimal256($, 38)'),
  parse_numeric: parseNumber('NUMERIC', 'toDecimal128($, 9)'),
};
