/** ClickHouse renderings of BigQuery's array functions. */

import { arg, optionalArg, same, unsupported, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { ARRAY_FUNCTIONS } from '../../../sql/functions/families/array.ts';
import { invalidSql } from '../../../sql/parse.ts';
import { intervalUnit, TIMESTAMP } from './time.ts';
import { int64 } from './shared.ts';

/** GENERATE_TIMESTAMP_ARRAY(start, end, INTERVAL n unit): both ends included. */
function timestampSeries(call: CallParts): string {
  const step = call.raw[2];
  if (step?.kind !== 'interval') throw invalidSql('GENERATE_TIMESTAMP_ARRAY needs an INTERVAL step');
  const unit = intervalUnit(step.unit);
  const start = `CAST(${arg(call, 0)} AS ${TIMESTAMP})`;
  const end = `CAST(${arg(call, 1)} AS ${TIMESTAMP})`;
  const count = call.args[2]!.replace(/^toInterval\w+\((.*)\)$/s, '$1');
  const steps = `range(toUInt64(greatest(0, intDiv(age('${unit.toLowerCase()}', ${start}, ${end}), ${count}) + 1)))`;
  return `arrayMap(__step -> ${start} + toInterval${unit}(__step * ${count}), ${steps})`;
}

export const ARRAY: Renderings<typeof ARRAY_FUNCTIONS> = {
  array_concat: same('arrayConcat'),
  array_is_distinct: unsupported('ARRAY_IS_DISTINCT is not mapped to ClickHouse yet'),
  array_length: int64(same('length')),
  array_reverse: same('arrayReverse'),
  array_to_string: (call) => `arrayStringConcat(${arg(call, 0)}, ${arg(call, 1)})`,
  generate_array: (call) => {
    const [start, end, step] = [`toInt64(${arg(call, 0)})`, `toInt64(${arg(call, 1)})`, `toInt64(${optionalArg(call, 2) ?? '1'})`];
    return `arrayMap(__step -> ${start} + toInt64(__step) * ${step}, range(toUInt64(greatest(0, intDiv(${end} - ${start}, ${step}) + 1))))`;
  },
  generate_date_array: unsupported('GENERATE_DATE_ARRAY is not mapped to ClickHouse yet'),
  generate_timestamp_array: timestampSeries,
};
