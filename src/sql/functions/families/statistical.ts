/** BigQuery's statistical aggregate functions. */

import { aggregate, type Catalog } from '../entry.ts';

const ofValues = (signatures: string[]) => aggregate('statistical', signatures);

export const STATISTICAL_FUNCTIONS = {
  corr: ofValues(['(FLOAT64, FLOAT64) -> FLOAT64']),
  covar_pop: ofValues(['(FLOAT64, FLOAT64) -> FLOAT64']),
  covar_samp: ofValues(['(FLOAT64, FLOAT64) -> FLOAT64']),
  stddev: ofValues(['(FLOAT64) -> FLOAT64']),
  stddev_pop: ofValues(['(FLOAT64) -> FLOAT64']),
  stddev_samp: ofValues(['(FLOAT64) -> FLOAT64']),
  var_pop: ofValues(['(FLOAT64) -> FLOAT64']),
  var_samp: ofValues(['(FLOAT64) -> FLOAT64']),
  variance: ofValues(['(FLOAT64) -> FLOAT64']),
} satisfies Catalog;
