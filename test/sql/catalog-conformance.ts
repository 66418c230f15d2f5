/**
 * Every signature of every catalog entry, called with ordinary values of its argument types and
 * run on an engine the way an endpoint runs a query: the analyzer accepted the call, so the
 * engine must run it, or the query must have been refused at save (the engine's `unsupported`
 * reason). What may not happen is the engine's own complaint about the SQL it was given (a type
 * it does not take, a function it does not know): that is a rendering that does not fit its
 * signature, and a user would see the engine's words for it.
 */

import { AppError } from '../../src/errors.ts';
import { BIGQUERY_FUNCTIONS, type FunctionEntry } from '../../src/sql/functions/index.ts';
import { ENUM_SETS, PART_SETS, type Param, type Signature, type TypePattern } from '../../src/sql/functions/signature.ts';
import { translate, type SqlDialect } from '../../src/sql/index.ts';
import type { ScalarTypeName } from '../../src/sql/ir.ts';

/** A value of each type, chosen to be valid input for most functions; or a NULL of that type. */
function valueOf(type: TypePattern, nulls = false): string {
  if (nulls && type.kind !== 'part' && type.kind !== 'enum') return `CAST(NULL AS ${typeName(type)})`;
  switch (type.kind) {
    case 'scalar':
      return SCALAR_VALUES[type.name];
    case 'array':
      return `[${valueOf(type.element)}]`;
    case 'struct':
      return `STRUCT(${type.fields.map((field) => `${valueOf(field.type)} AS ${field.name}`).join(', ')})`;
    case 'any_struct':
      return "STRUCT(1 AS a, 'x' AS b)";
    case 'var':
    case 'any':
      return '3';
    case 'part':
      return [...PART_SETS[type.set]][type.set === 'TIME_PART' || type.set === 'INTERVAL_PART' ? 4 : 0]!.toUpperCase();
    case 'enum':
      return [...ENUM_SETS[type.set]][0]!;
  }
}

function typeName(type: TypePattern): string {
  switch (type.kind) {
    case 'scalar':
      return type.name;
    case 'array':
      return `ARRAY<${typeName(type.element)}>`;
    case 'struct':
      return `STRUCT<${type.fields.map((field) => `${field.name} ${typeName(field.type)}`).join(', ')}>`;
    case 'any_struct':
      return 'STRUCT<a INT64, b STRING>';
    default:
      return 'INT64';
  }
}

const SCALAR_VALUES: Record<ScalarTypeName, string> = {
  INT64: '3',
  FLOAT64: '2.5',
  NUMERIC: "NUMERIC '1.5'",
  BIGNUMERIC: "BIGNUMERIC '1.5'",
  STRING: "'abc'",
  BYTES: "b'abc'",
  BOOL: 'TRUE',
  TIMESTAMP: "TIMESTAMP '2024-01-02 03:04:05+00'",
  DATETIME: "DATETIME '2024-01-02 03:04:05'",
  DATE: "DATE '2024-01-02'",
  TIME: "TIME '03:04:05'",
  JSON: 'JSON \'{"a": 1}\'',
  INTERVAL: 'INTERVAL 1 DAY',
};

export interface ConformanceCall {
  name: string;
  signature: string;
  sql: string;
}

/** One call per signature: its required arguments, and one with every optional positional one too. */
export function conformanceCalls(): ConformanceCall[] {
  const calls: ConformanceCall[] = [];
  for (const [name, entry] of Object.entries(BIGQUERY_FUNCTIONS) as Array<[string, FunctionEntry]>) {
    for (const signature of entry.signatures) {
      const positional = signature.params.filter((param) => !param.namedOnly);
      const required = positional.filter((param) => !param.optional);
      const all = positional.filter((param) => !param.repeated || param === positional.find((other) => other.repeated));
      for (const params of required.length === all.length ? [required] : [required, all]) {
        calls.push({ name, signature: signature.text, sql: callQuery(name, entry, signature, params, false) });
        calls.push({ name, signature: `${signature.text}, NULLs`, sql: callQuery(name, entry, signature, params, true) });
      }
    }
  }
  return calls;
}

function callQuery(name: string, entry: FunctionEntry, _signature: Signature, params: Param[], nulls: boolean): string {
  const call = `${name.toUpperCase()}(${params.map((param) => valueOf(param.type, nulls)).join(', ')})`;
  if (entry.kind === 'window') return `SELECT ${call} OVER (ORDER BY u) AS v FROM UNNEST([1, 2]) AS u`;
  if (entry.kind === 'aggregate') return `SELECT ${call} AS v FROM UNNEST([1, 2]) AS u`;
  return `SELECT ${call} AS v`;
}

/**
 * The engine's own complaints about the SQL it was given: DuckDB's binder, catalog and parser
 * errors; ClickHouse's type, argument and unknown-name errors. BigQuery's run-time errors (a
 * value out of range) come through as our own messages and are not these.
 */
const ENGINE_COMPLAINTS = /Binder Error|Catalog Error|Parser Error|ILLEGAL_TYPE_OF_ARGUMENT|NO_COMMON_TYPE|UNKNOWN_FUNCTION|UNKNOWN_IDENTIFIER|SYNTAX_ERROR|TYPE_MISMATCH|NUMBER_OF_ARGUMENTS_DOESNT_MATCH|ILLEGAL_COLUMN|NOT_IMPLEMENTED|CANNOT_CONVERT_TYPE|Illegal type|Cannot convert|No function matches/;

export type ConformanceOutcome = { ok: true } | { ok: false; reason: string };

export async function runConformance(call: ConformanceCall, dialect: SqlDialect, queryJson: (sql: string) => Promise<string>): Promise<ConformanceOutcome> {
  let sql: string;
  try {
    sql = translate(call.sql, dialect, { resolveTable: () => undefined }).sql;
  } catch (error) {
    // Refused at save: by the engine's `unsupported`, or by a check of the call's arguments.
    if (error instanceof AppError && error.status === 400) return { ok: true };
    return { ok: false, reason: `translation failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    await queryJson(sql);
    return { ok: true };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return ENGINE_COMPLAINTS.test(message) ? { ok: false, reason: message.split('\n')[0]!.slice(0, 300) } : { ok: true };
  }
}
