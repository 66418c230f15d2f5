/** DuckDB renderings of BigQuery's mathematical and conditional functions. */

import { arg, PORTABLE_EMITTERS, same, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { CONDITIONAL_FUNCTIONS } from '../../../sql/functions/families/conditional.ts';
import type { MATHEMATICAL_FUNCTIONS } from '../../../sql/functions/families/mathematical.ts';

/** BigQuery's GREATEST/LEAST return NULL when any argument is NULL; DuckDB's skip NULLs. */
const nullPropagating =
  (name: string): Emitter =>
  (call) =>
    `(CASE WHEN ${call.args.map((value) => `${value} IS NULL`).join(' OR ')} THEN NULL ELSE ${name}(${call.args.join(', ')}) END)`;

export const MATHEMATICAL: Renderings<typeof MATHEMATICAL_FUNCTIONS> = {
  abs: PORTABLE_EMITTERS.abs,
  sign: PORTABLE_EMITTERS.sign,
  round: (call) => (call.args.length === 1 ? `round(${arg(call, 0)})` : `round(${arg(call, 0)}, CAST(${arg(call, 1)} AS INTEGER))`),
  trunc: (call) => (call.args.length === 1 ? `trunc(${arg(call, 0)})` : `trunc(${arg(call, 0)}, CAST(${arg(call, 1)} AS INTEGER))`),
  floor: PORTABLE_EMITTERS.floor,
  ceil: PORTABLE_EMITTERS.ceil,
  ceiling: PORTABLE_EMITTERS.ceiling,
  sqrt: PORTABLE_EMITTERS.sqrt,
  pow: PORTABLE_EMITTERS.pow,
  power: PORTABLE_EMITTERS.power,
  exp: PORTABLE_EMITTERS.exp,
  ln: same('ln'),
  // BigQuery LOG(x) is the natural logarithm; DuckDB's log(x) is base 10.
  log: (call) => (call.args.length === 1 ? `ln(${arg(call, 0)})` : `(ln(${arg(call, 0)}) / ln(${arg(call, 1)}))`),
  log10: PORTABLE_EMITTERS.log10,
  mod: PORTABLE_EMITTERS.mod,
  div: (call) => `(${arg(call, 0)} // ${arg(call, 1)})`,
  safe_divide: (call) => `(CASE WHEN ${arg(call, 1)} = 0 THEN NULL ELSE ${arg(call, 0)} / ${arg(call, 1)} END)`,
  greatest: nullPropagating('greatest'),
  least: nullPropagating('least'),
};

export const CONDITIONAL: Renderings<typeof CONDITIONAL_FUNCTIONS> = {
  coalesce: PORTABLE_EMITTERS.coalesce,
  ifnull: same('coalesce'),
  nullif: same('nullif'),
};
