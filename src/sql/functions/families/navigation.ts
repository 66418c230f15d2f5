/**
 * BigQuery's navigation functions: window functions that read another row of the window, or a
 * percentile of it. OVER rules after ZetaSQL's: LAG and LEAD need ORDER BY and take no frame,
 * FIRST_VALUE, LAST_VALUE and NTH_VALUE need ORDER BY, PERCENTILE_CONT/DISC take PARTITION BY only.
 */

import { windowOnly, type Catalog, type WindowSupport } from '../entry.ts';
import { argumentBounds } from './bounds.ts';

const ORDERED_FRAMED: WindowSupport = { order: 'required', frame: true };
const ORDERED: WindowSupport = { order: 'required', frame: false };
const PARTITIONED: WindowSupport = { order: 'refused', frame: false };

export const NAVIGATION_FUNCTIONS = {
  first_value: windowOnly('navigation', ['(T1) -> T1'], { clauses: ['null_treatment'], window: ORDERED_FRAMED }),
  last_value: windowOnly('navigation', ['(T1) -> T1'], { clauses: ['null_treatment'], window: ORDERED_FRAMED }),
  nth_value: windowOnly('navigation', ['(T1, CONST INT64) -> T1'], { clauses: ['null_treatment'], window: ORDERED_FRAMED, check: argumentBounds('NTH_VALUE', 1, 1) }),
  lag: windowOnly('navigation', ['(T1, [CONST INT64], [T1]) -> T1'], { window: ORDERED, check: argumentBounds('LAG', 1, 0) }),
  lead: windowOnly('navigation', ['(T1, [CONST INT64], [T1]) -> T1'], { window: ORDERED, check: argumentBounds('LEAD', 1, 0) }),
  // Linear interpolation between the two values around the percentile.
  percentile_cont: windowOnly('navigation', ['(FLOAT64, CONST FLOAT64) -> FLOAT64', '(NUMERIC, CONST NUMERIC) -> NUMERIC', '(BIGNUMERIC, CONST BIGNUMERIC) -> BIGNUMERIC'], {
    clauses: ['null_treatment'],
    window: PARTITIONED,
    check: argumentBounds('PERCENTILE_CONT', 1, 0, 1),
  }),
  // The first value whose cumulative distribution reaches the percentile.
  percentile_disc: windowOnly('navigation', ['(T1, CONST FLOAT64) -> T1', '(T1, CONST NUMERIC) -> T1', '(T1, CONST BIGNUMERIC) -> T1'], {
    clauses: ['null_treatment'],
    window: PARTITIONED,
    check: argumentBounds('PERCENTILE_DISC', 1, 0, 1),
  }),
} satisfies Catalog;
