import { type DuckDBType, DuckDBTypeId, DuckDBListType, DuckDBStructType } from '@duckdb/node-api';
import type { FieldType, RecordFields, ScalarType } from '../types.ts';

/** Engine-neutral field types as DuckDB column types: records are STRUCT lists, as in BigQuery. */

const SCALAR_SQL = { bool: 'BOOLEAN', int: 'BIGINT', float: 'DOUBLE', string: 'VARCHAR', timestamp: 'TIMESTAMPTZ' } as const;

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

export function duckdbType(type: FieldType): string {
  switch (type.kind) {
    case 'record':
      return `STRUCT(${[...type.fields].map(([name, field]) => `${quoteIdent(name)} ${duckdbType(field)}`).join(', ')})[]`;
    case 'list':
      return `${SCALAR_SQL[type.element.kind]}[]`;
    default:
      return SCALAR_SQL[type.kind];
  }
}

function scalarFromDuckdb(type: DuckDBType): ScalarType {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return { kind: 'bool' };
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.TINYINT:
      return { kind: 'int' };
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.FLOAT:
      return { kind: 'float' };
    case DuckDBTypeId.TIMESTAMP_TZ:
      return { kind: 'timestamp' };
    default:
      return { kind: 'string' };
  }
}

/** Read a stored column type back into a field type (used when opening an existing file). */
export function fieldTypeFromDuckdb(type: DuckDBType): FieldType {
  if (!(type instanceof DuckDBListType)) return scalarFromDuckdb(type);
  const element = type.valueType;
  if (element instanceof DuckDBStructType) return { kind: 'record', fields: fieldsFromStruct(element) };
  return { kind: 'list', element: scalarFromDuckdb(element) };
}

function fieldsFromStruct(struct: DuckDBStructType): RecordFields {
  return new Map(struct.entryNames.map((name, i) => [name, fieldTypeFromDuckdb(struct.entryTypes[i]!)]));
}
