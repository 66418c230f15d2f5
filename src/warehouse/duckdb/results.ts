import {

  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBValue,
  type DuckDBValueConverter,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
} from '@duckdb/node-api';

/**
 * Query results in the wire shape Logflare clients expect: TIMESTAMP (TIMESTAMPTZ here) as integer
 * microseconds, DATETIME (plain TIMESTAMP here) as an ISO string without zone, integers and decimals
 * as JSON numbers, records as arrays of objects.
 */

type Wire = unknown;

function microsOf(value: DuckDBValue): number {
  return Number((value as DuckDBTimestampTZValue | DuckDBTimestampValue).micros);
}

function isoWithoutZone(value: DuckDBValue): string {
  const micros = BigInt((value as DuckDBTimestampValue).micros);
  const millis = Number(micros / 1000n);
  const fraction = String(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n).padStart(6, '0');
  const seconds = new Date(millis).toISOString().slice(0, 19);
  return fraction === '000000' ? seconds : `${seconds}.${fraction}`;
}

const toNumber = (value: DuckDBValue) => Number(typeof value === 'object' && value !== null ? value.toString() : value);

const wireConverter: DuckDBValueConverter<Wire> = (value, type, converter) => {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP_TZ:
      return microsOf(value);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_NS:
      return type.typeId === DuckDBTypeId.TIMESTAMP ? isoWithoutZone(value) : String(value);
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.DECIMAL:
      return toNumber(value);
    default:
      return (JsonDuckDBValueConverter as DuckDBValueConverter<Wire>)(value, type, converter);
  }
};

export const resultConverter = wireConverter;
