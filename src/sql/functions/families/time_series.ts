/** BigQuery's time series functions: the bucket a value falls in (GAP_FILL is a table function, not mapped). */

import { scalar, type Catalog } from '../entry.ts';

const bucket = (first: 'DATE' | 'DATETIME' | 'TIMESTAMP') => {
  const forms = ['DATE', 'DATETIME', 'TIMESTAMP'].sort((a, b) => (a === first ? -1 : b === first ? 1 : 0));
  return scalar('time_series', forms.map((type) => `(${type}, INTERVAL, [${type}]) -> ${type}`));
};

export const TIME_SERIES_FUNCTIONS = {
  date_bucket: bucket('DATE'),
  datetime_bucket: bucket('DATETIME'),
  timestamp_bucket: bucket('TIMESTAMP'),
} satisfies Catalog;
