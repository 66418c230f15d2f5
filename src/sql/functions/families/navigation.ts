/** BigQuery's navigation functions (window functions that read another row of the window). */

import { windowOnly, type Catalog } from '../entry.ts';

export const NAVIGATION_FUNCTIONS = {
  first_value: windowOnly('navigation', ['(T1) -> T1'], { clauses: ['null_treatment'] }),
  last_value: windowOnly('navigation', ['(T1) -> T1'], { clauses: ['null_treatment'] }),
  nth_value: windowOnly('navigation', ['(T1, INT64) -> T1'], { clauses: ['null_treatment'] }),
  lag: windowOnly('navigation', ['(T1, [INT64], [T1]) -> T1']),
  lead: windowOnly('navigation', ['(T1, [INT64], [T1]) -> T1']),
} satisfies Catalog;
