/** ClickHouse's CAST(number AS STRING FORMAT model): cast-formats.ts builds it over these few spellings. */

import { numberFormatSql, type NumberDialect } from '../../../sql/cast-formats.ts';
import type * as ir from '../../../sql/ir.ts';

const DIALECT: NumberDialect = {
  fixed: (value, digits) => `trimRight(toDecimalString(round(toFloat64(${value}), ${digits}), ${digits}), '.')`,
  text: (value) => `toString(${value})`,
  hex: (value) => `hex(${value})`,
  before: (text) => `splitByChar('.', ${text})[1]`,
  after: (text) => `splitByChar('.', ${text})[2]`,
  lpad: (text, width, pad) => `leftPad(${text}, toUInt64(${width}), ${pad})`,
  integer: (value) => `toInt64(${value})`,
};

export function numberText(value: string, _from: ir.ScalarTypeName, model: string): string {
  return numberFormatSql(model, value, DIALECT);
}
