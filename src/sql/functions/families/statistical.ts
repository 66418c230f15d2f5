/** BigQuery's statistical aggregate functions. */

import { aggregate, type Catalog } from '../entry.ts';

/** NUMERIC and BIGNUMERIC values are taken as they are; every result is a FLOAT64. */
const ofValues = () => aggregate('statistical', ['(NUMERIC) -> FLOAT64', '(BIGNUMERIC) -> FLOAT64', '(FLOAT64) -> FLOAT64']);
const ofPairs = () => aggregate('statistical', ['(NUMERIC, NUMERIC) -> FLOAT64', '(BIGNUMERIC, BIGNUMERIC) -> FLOAT64', '(FLOAT64, FLOAT64) -> FLOAT64']);

export const STATISTICAL_FUNCTIONS = {
  corr: ofPairs(),
  covar_pop: ofPairs(),
  covar_samp: ofPairs(),
  stddev: ofValues(),
  stddev_pop: ofValues(),
  stddev_samp: ofValues(),
  var_pop: ofValues(),
  var_samp: ofValues(),
  variance: ofValues(),
} satisfies Catalog;
