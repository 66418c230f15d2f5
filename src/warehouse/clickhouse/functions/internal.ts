/**
 * ClickHouse's own spelling of the internal functions (src/sql/functions/families/internal.ts):
 * the functions ClickHouse SQL named, as written.
 */

import { arg, optionalArg, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { INTERNAL_FUNCTIONS } from '../../../sql/functions/families/internal.ts';
import { jsonSubscript } from './json.ts';
import { invalidSql } from '../../../sql/parse.ts';

const int64 = (inner: string) => `toInt64(${inner})`;
const all = (name: string): Emitter => (call) => `${name}(${call.args.join(', ')})`;

export const INTERNAL: Renderings<typeof INTERNAL_FUNCTIONS> = {
  json_subscript: jsonSubscript,
  length_of: (call) => int64(`length(${arg(call, 0)})`),
  byte_position: (call) => int64(`position(${arg(call, 0)}, ${arg(call, 1)})`),
  quantile_interpolated: (call) => {
    const level = call.raw[1];
    if (level?.kind !== 'number') throw invalidSql('a quantile level must be a number literal');
    return `quantile(${level.text})(${arg(call, 0)})${call.over}`;
  },
  arg_max: (call) => `argMax(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  arg_min: (call) => `argMin(${arg(call, 0)}, ${arg(call, 1)})${call.over}`,
  round_half_even: (call) => `round(${arg(call, 0)}, ${optionalArg(call, 1) ?? '0'})`,
  json_extract_string: all('JSONExtractString'),
  json_extract_int: (call) => int64(all('JSONExtractInt')(call)),
  json_extract_float: all('JSONExtractFloat'),
  json_extract_bool: (call) => int64(all('JSONExtractBool')(call)),
  json_extract_raw: all('JSONExtractRaw'),
  json_has: (call) => int64(all('JSONHas')(call)),
};
