/**
 * One catalog entry: a BigQuery function's kind, family, signatures and the clauses a call of it
 * may carry. Entries are data; the analyzer resolves calls against them (resolve.ts) and each
 * engine renders every entry (src/warehouse/<engine>/functions/).
 */

import type { SqlType } from '../catalog.ts';
import type * as ir from '../ir.ts';
import { parseSignature, type Signature } from './signature.ts';

/** The families of BigQuery's function reference (one catalog file each). */
export type Family =
  | 'aggregate'
  | 'approximate_aggregate'
  | 'array'
  | 'bit'
  | 'conditional'
  | 'conversion'
  | 'date'
  | 'datetime'
  | 'debugging'
  | 'hash'
  | 'interval'
  | 'json'
  | 'mathematical'
  | 'navigation'
  | 'net'
  | 'numbering'
  | 'search'
  | 'statistical'
  | 'string'
  | 'time'
  | 'time_series'
  | 'timestamp'
  | 'utility'
  /** Functions only the ClickHouse SQL front end puts in a tree; BigQuery SQL cannot name them. */
  | 'internal';

export type FunctionKind = 'scalar' | 'aggregate' | 'window';

/**
 * What may be written inside or after a call's parentheses besides its arguments:
 * `DISTINCT`, `ORDER BY … LIMIT n` (ARRAY_AGG …), `IGNORE/RESPECT NULLS`, `HAVING MAX|MIN y`,
 * and `OVER (…)` (every aggregate may take one; window functions need one).
 */
export type Clause = 'distinct' | 'order_by' | 'limit' | 'null_treatment' | 'having' | 'over';

/**
 * A rule on a call's arguments beyond their types, after ZetaSQL's post-resolution argument
 * constraints (FORMAT's pattern against the values it formats): the problem in BigQuery's words,
 * checked once the call is resolved (`args` and `named` with coercions applied, `types` as resolved,
 * `given` the arguments' own types before coercion: DATE_TRUNC(DATE, HOUR) is refused although a
 * DATE coerces to the DATETIME that HOUR truncates). `evaluation`: BigQuery raises it when the
 * call runs, so under SAFE. the call is NULL instead (its rendering says so) rather than refused.
 */
export type ArgumentCheck = (
  args: readonly ir.Expr[],
  types: readonly SqlType[],
  named: Readonly<Record<string, ir.Expr>>,
  given: readonly SqlType[],
) => { message: string; evaluation?: boolean } | undefined;

/**
 * What a window function's OVER clause may hold besides PARTITION BY, after ZetaSQL's window
 * ordering and framing support: RANK needs ORDER BY, PERCENTILE_CONT refuses it, LAG takes no frame.
 */
export interface WindowSupport {
  order: 'required' | 'allowed' | 'refused';
  frame: boolean;
}

export interface FunctionEntry {
  kind: FunctionKind;
  family: Family;
  signatures: readonly Signature[];
  clauses: ReadonlySet<Clause>;
  /** Absent: ORDER BY and a frame are both allowed. */
  window?: WindowSupport;
  /** One line in our words for the docs table (what differs from BigQuery goes in the engines' notes). */
  summary?: string;
  check?: ArgumentCheck;
}

interface EntryOptions {
  clauses?: readonly Clause[];
  window?: WindowSupport;
  summary?: string;
  check?: ArgumentCheck;
}

function entry(kind: FunctionKind, family: Family, signatures: readonly string[], options: EntryOptions = {}): FunctionEntry {
  return {
    kind,
    family,
    signatures: signatures.map(parseSignature),
    clauses: new Set(options.clauses ?? []),
    ...(options.summary ? { summary: options.summary } : {}),
    ...(options.check ? { check: options.check } : {}),
    ...(options.window ? { window: options.window } : {}),
  };
}

/** A scalar function: `scalar('string', ['(STRING) -> INT64', '(BYTES) -> INT64'])`. */
export const scalar = (family: Family, signatures: readonly string[], options?: EntryOptions) => entry('scalar', family, signatures, options);

/** An aggregate; it takes DISTINCT and OVER unless `clauses` says otherwise. */
export const aggregate = (family: Family, signatures: readonly string[], options: EntryOptions = {}) =>
  entry('aggregate', family, signatures, { ...options, clauses: options.clauses ?? ['distinct', 'over'] });

/** A window-only function (RANK, LAG …): OVER is required. */
export const windowOnly = (family: Family, signatures: readonly string[], options: EntryOptions = {}) =>
  entry('window', family, signatures, { ...options, clauses: ['over', ...(options.clauses ?? [])] });

export type Catalog = Record<string, FunctionEntry>;
