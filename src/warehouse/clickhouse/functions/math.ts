/** ClickHouse renderings of BigQuery's mathematical and conditional functions. */

import { arg, optionalArg, PORTABLE_EMITTERS, same, type Emitter, type Renderings } from '../../../sql/emitters.ts';
import type { CONDITIONAL_FUNCTIONS } from '../../../sql/functions/families/conditional.ts';
import type { MATHEMATICAL_FUNCTIONS } from '../../../sql/functions/families/mathematical.ts';

/** BigQuery's GREATEST/LEAST return NULL when any argument is NULL; ClickHouse's skip NULLs. */
const nullPropagating =
  (name: string): Emitter =>
  (call) =>
    `if(${call.args.map((value) => `isNull(${value})`).join(' OR ')}, NULL, ${name}(${call.args.join(', ')}))`;

/** Half away from zero, as BigQuery rounds (ClickHouse rounds floats half to even). */
function roundHalfAway(value: string, digits: string): string {
  const scale = `pow(10, toInt64(${digits}))`;
  return `(sign(${value}) * floor(abs(${value}) * ${scale} + 0.5) / ${scale})`;
}

export const MATHEMATICAL: Renderings<typeof MATHEMATICAL_FUNCTIONS> = {
  abs: PORTABLE_EMITTERS.abs,
  sign: PORTABLE_EMITTERS.sign,
  round: (call) => roundHalfAway(arg(call, 0), optionalArg(call, 1) ?? '0'),
  trunc: (call) => (call.args.length === 1 ? `trunc(${arg(call, 0)})` : `trunc(${arg(call, 0)}, ${arg(call, 1)})`),
  floor: PORTABLE_EMITTERS.floor,
  ceil: PORTABLE_EMITTERS.ceil,
  ceiling: PORTABLE_EMITTERS.ceiling,
  sqrt: PORTABLE_EMITTERS.sqrt,
  pow: PORTABLE_EMITTERS.pow,
  power: PORTABLE_EMITTERS.power,
  exp: PORTABLE_EMITTERS.exp,
  // ClickHouse log(x) is the natural logarithm, as BigQuery's LOG(x).
  ln: same('log'),
  log: (call) => (call.args.length === 1 ? `log(${arg(call, 0)})` : `(log(${arg(call, 0)}) / log(${arg(call, 1)}))`),
  log10: PORTABLE_EMITTERS.log10,
  mod: PORTABLE_EMITTERS.mod,
  div: (call) => `intDiv(${arg(call, 0)}, ${arg(call, 1)})`,
  safe_divide: (call) => `if(${arg(call, 1)} = 0, NULL, ${arg(call, 0)} / ${arg(call, 1)})`,
  greatest: nullPropagating('greatest'),
  least: nullPropagating('least'),
};

export const CONDITIONAL: Renderings<typeof CONDITIONAL_FUNCTIONS> = {
  coalesce: PORTABLE_EMITTERS.coalesce,
  ifnull: same('ifNull'),
  nullif: same('nullIf'),
};
