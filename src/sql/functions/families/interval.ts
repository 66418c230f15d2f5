/**
 * BigQuery's interval functions, and the operators that take or give an INTERVAL or move a date
 * or time (ZetaSQL's $add, $subtract, $multiply, $divide and $unary_minus signatures for those
 * types). The analyzer resolves `a + b` against the operator entries when either side is a DATE,
 * DATETIME, TIME, TIMESTAMP or INTERVAL (ir.ts `temporal`); BigQuery SQL cannot call them by name.
 */

import type * as ir from '../../ir.ts';
import { scalar, type Catalog } from '../entry.ts';

const interval = (signatures: string[]) => scalar('interval', signatures);
const operator = (signatures: string[]) => scalar('internal', signatures);

export const INTERVAL_FUNCTIONS = {
  justify_days: interval(['(INTERVAL) -> INTERVAL']),
  justify_hours: interval(['(INTERVAL) -> INTERVAL']),
  justify_interval: interval(['(INTERVAL) -> INTERVAL']),
  make_interval: interval(['([year => INT64], [month => INT64], [day => INT64], [hour => INT64], [minute => INT64], [second => INT64]) -> INTERVAL']),
} satisfies Catalog;

export const TEMPORAL_OPERATORS = {
  temporal_add: operator([
    '(DATE, INT64) -> DATE',
    '(INT64, DATE) -> DATE',
    '(TIMESTAMP, INTERVAL) -> TIMESTAMP',
    '(INTERVAL, TIMESTAMP) -> TIMESTAMP',
    '(DATE, INTERVAL) -> DATETIME',
    '(INTERVAL, DATE) -> DATETIME',
    '(DATETIME, INTERVAL) -> DATETIME',
    '(INTERVAL, DATETIME) -> DATETIME',
    '(INTERVAL, INTERVAL) -> INTERVAL',
  ]),
  temporal_subtract: operator([
    '(DATE, INT64) -> DATE',
    '(DATE, DATE) -> INTERVAL',
    '(TIMESTAMP, TIMESTAMP) -> INTERVAL',
    '(DATETIME, DATETIME) -> INTERVAL',
    '(TIME, TIME) -> INTERVAL',
    '(TIMESTAMP, INTERVAL) -> TIMESTAMP',
    '(DATE, INTERVAL) -> DATETIME',
    '(DATETIME, INTERVAL) -> DATETIME',
    '(INTERVAL, INTERVAL) -> INTERVAL',
  ]),
  interval_multiply: operator(['(INTERVAL, INT64) -> INTERVAL', '(INT64, INTERVAL) -> INTERVAL']),
  interval_divide: operator(['(INTERVAL, INT64) -> INTERVAL']),
  interval_negate: operator(['(INTERVAL) -> INTERVAL']),
  /** An INTERVAL literal BigQuery writes as text (`INTERVAL '1-2 3 4:5:6' YEAR TO SECOND`): (months, days, microseconds), read by lower.ts. */
  interval_parts: operator(['(INT64, INT64, INT64) -> INTERVAL']),
} satisfies Catalog;

/** The operator entry for each arithmetic operator, where an operand is a date, time or interval. */
export const TEMPORAL_OPERATOR_OF = {
  '+': 'temporal_add',
  '-': 'temporal_subtract',
  '*': 'interval_multiply',
  '/': 'interval_divide',
} as const satisfies Partial<Record<ir.BinaryOperator, keyof typeof TEMPORAL_OPERATORS>>;
