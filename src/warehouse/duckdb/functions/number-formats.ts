/** DuckDB's CAST(number AS STRING FORMAT model): cast-formats.ts builds it over these few spellings. */

import { numberFormatSql, type NumberDialect } from '../../../sql/cast-formats.ts';
import type * as ir from '../../../sql/ir.ts';

const DIALECT: NumberDialect = {
  fixed: (value, digits) => `printf('%.${digits}f', round(CAST(${value} AS DOUBLE), ${digits}))`,
  text: (value) => `CAST(${value} AS VARCHAR)`,
  hex: (value) => `upper(to_hex(${value}))`,
  before: (text) => `split_part(${text}, '.', 1)`,
  after: (text) => `split_part(${text}, '.', 2)`,
  lpad: (text, width, pad) => `lpad(${text}, CAST(${width} AS INTEGER), ${pad})`,
  integer: (value) => `CAST(${value} AS BIGINT)`,
};

export function numberText(value: string, _from: ir.ScalarTypeName, model: string): string {
  return numberFormatSql(model, value, DIALECT);
}
