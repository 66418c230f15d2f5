/**
 * Functions DuckDB lacks, written in JavaScript and registered on the database (every
 * connection sees them): FarmHash's Fingerprint64 (BigQuery's FARM_FINGERPRINT), SHA-512, base32.
 * Each runs a chunk of rows (up to 2,048) per call on the Node thread; a query reaches them only
 * through the catalog's renderings, since the translator refuses every name it does not know.
 */

import { createHash } from 'node:crypto';
import { BIGINT, BLOB, blobValue, BOOLEAN, type DuckDBConnection, DuckDBScalarFunction, type DuckDBType, type DuckDBVector, INTEGER, LIST, listValue, VARCHAR } from '@duckdb/node-api';
import { jsonFlatten, jsonKeys, type JsonKeysMode, stripNulls } from '../../../sql/json/tree.ts';
import { jsonText, parseJson, prettyJsonText } from '../../../sql/json/value.ts';
import { readIntervalCast } from '../../../sql/interval-text.ts';
import { bigqueryFingerprint } from 'farmhash-modern';
import { ipFromString, ipNetMask, ipToString, ipTrunc, ipv4FromInt64, ipv4ToInt64, publicSuffix, registeredDomain } from './net-values.ts';
import { STRING_JS_FUNCTIONS } from './string-udfs.ts';

export type Value = string | bigint | boolean | number | Uint8Array | ReadonlyArray<string | bigint | Uint8Array | null> | null;

export interface JsFunction {
  name: string;
  parameters: DuckDBType[];
  returns: DuckDBType;
  /** The value for one row's arguments (none NULL: a NULL argument gives NULL); throw for an error. */
  apply(...args: Array<Exclude<Value, null>>): Value;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 with padding, as BigQuery's TO_BASE32 writes it. */
function toBase32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

/** RFC 4648 base32, padding optional; anything else is an error, as in BigQuery. */
function fromBase32(text: string): Uint8Array {
  const body = text.replace(/=+$/, '');
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of body) {
    const digit = BASE32.indexOf(char.toUpperCase());
    if (digit < 0) throw new Error(`Invalid base32 input: ${text}`);
    value = ((value << 5) | digit) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(bytes);
}

function bitsSet(byte: number): number {
  let count = 0;
  for (let rest = byte; rest; rest &= rest - 1) count++;
  return count;
}

const bytesOf = (value: Exclude<Value, null>) => (typeof value === 'string' ? Buffer.from(value, 'utf8') : (value as Uint8Array));

export const JS_FUNCTIONS: readonly JsFunction[] = [
  { name: 'sawmill_farm_fingerprint', parameters: [BLOB], returns: BIGINT, apply: (value) => bigqueryFingerprint(bytesOf(value)) },
  { name: 'sawmill_sha512', parameters: [BLOB], returns: BLOB, apply: (value) => createHash('sha512').update(bytesOf(value)).digest() },
  { name: 'sawmill_to_base32', parameters: [BLOB], returns: VARCHAR, apply: (value) => toBase32(bytesOf(value)) },
  { name: 'sawmill_from_base32', parameters: [VARCHAR], returns: BLOB, apply: (value) => fromBase32(String(value)) },
  // Invalid UTF-8 becomes U+FFFD (SAFE_CONVERT_BYTES_TO_STRING).
  { name: 'sawmill_bytes_to_text', parameters: [BLOB], returns: VARCHAR, apply: (value) => Buffer.from(bytesOf(value)).toString('utf8') },
  { name: 'sawmill_public_suffix', parameters: [VARCHAR], returns: VARCHAR, apply: (host) => publicSuffix(String(host)) },
  { name: 'sawmill_reg_domain', parameters: [VARCHAR], returns: VARCHAR, apply: (host) => registeredDomain(String(host)) },
  { name: 'sawmill_ip_from_string', parameters: [VARCHAR], returns: BLOB, apply: (text) => ipFromString(String(text)) },
  { name: 'sawmill_safe_ip_from_string', parameters: [VARCHAR], returns: BLOB, apply: (text) => ipFromString(String(text), true) },
  { name: 'sawmill_ip_to_string', parameters: [BLOB], returns: VARCHAR, apply: (bytes) => ipToString(bytesOf(bytes)) },
  { name: 'sawmill_ip_net_mask', parameters: [BIGINT, BIGINT], returns: BLOB, apply: (size, prefix) => ipNetMask(Number(size), Number(prefix)) },
  { name: 'sawmill_ip_trunc', parameters: [BLOB, BIGINT], returns: BLOB, apply: (bytes, prefix) => ipTrunc(bytesOf(bytes), Number(prefix)) },
  { name: 'sawmill_ipv4_from_int64', parameters: [BIGINT], returns: BLOB, apply: (value) => ipv4FromInt64(BigInt(value as bigint)) },
  { name: 'sawmill_ipv4_to_int64', parameters: [BLOB], returns: BIGINT, apply: (bytes) => ipv4ToInt64(bytesOf(bytes)) },
  { name: 'sawmill_bit_count', parameters: [BLOB], returns: BIGINT, apply: (value) => BigInt(bytesOf(value).reduce((count, byte) => count + bitsSet(byte), 0)) },
  // BigQuery's JSON functions that read a whole tree (src/sql/json/tree.ts); JSON as text.
  {
    name: 'sawmill_json_strip_nulls',
    parameters: [VARCHAR, BOOLEAN, BOOLEAN],
    returns: VARCHAR,
    apply: (json, includeArrays, removeEmpty) => jsonText(stripNulls(parseJson(String(json)), includeArrays === true, removeEmpty === true)),
  },
  { name: 'sawmill_json_keys', parameters: [VARCHAR, BIGINT, VARCHAR], returns: LIST(VARCHAR), apply: (json, depth, mode) => jsonKeys(parseJson(String(json)), BigInt(depth as bigint), mode as JsonKeysMode) },
  { name: 'sawmill_json_flatten', parameters: [VARCHAR], returns: LIST(VARCHAR), apply: (json) => jsonFlatten(parseJson(String(json))).map(jsonText) },
  /** BigQuery's text of a JSON value; indented from the given column, or compact when it is negative. */
  { name: 'sawmill_json_text', parameters: [VARCHAR, INTEGER], returns: VARCHAR, apply: (json, indent) => (Number(indent) < 0 ? jsonText(parseJson(String(json))) : prettyJsonText(parseJson(String(json)), Number(indent))) },
  // CAST(text AS INTERVAL) of a column: [months, days, microseconds], NULL for text BigQuery does not read.
  {
    name: 'sawmill_interval_parts',
    parameters: [VARCHAR],
    returns: LIST(BIGINT),
    apply: (text) => {
      const parts = readIntervalCast(String(text));
      return parts ? [BigInt(parts.months), BigInt(parts.days), parts.micros] : null;
    },
  },
  ...STRING_JS_FUNCTIONS,
];

function read(vector: DuckDBVector, row: number): Value {
  if (vector.type.typeId === BLOB.typeId) return (vector as unknown as { getItemBytes(row: number): Uint8Array | null }).getItemBytes(row);
  return vector.getItem(row) as Value;
}

/** A result as DuckDB takes it: BYTES as blob values, lists element by element. */
function duckdbValue(result: Value) {
  if (result instanceof Uint8Array) return blobValue(result);
  if (Array.isArray(result)) return listValue((result as Array<string | bigint | Uint8Array | null>).map((item) => (item instanceof Uint8Array ? blobValue(item) : item)));
  return result as Exclude<Value, Uint8Array | readonly unknown[]>;
}

/** Register every JavaScript function on the database `connection` belongs to. */
export function registerJsFunctions(connection: DuckDBConnection): void {
  for (const fn of JS_FUNCTIONS) {
    const scalar = DuckDBScalarFunction.create({
      name: fn.name,
      parameterTypes: fn.parameters,
      returnType: fn.returns,
      mainFunction: (info, input, output) => {
        const columns = fn.parameters.map((_type, index) => input.getColumnVector(index));
        for (let row = 0; row < input.rowCount; row++) {
          const args = columns.map((column) => read(column, row));
          try {
            const result = args.includes(null) ? null : fn.apply(...(args as Array<Exclude<Value, null>>));
            output.setItem(row, duckdbValue(result));
          } catch (error) {
            info.setError(error instanceof Error ? error.message : String(error));
            return;
          }
        }
        output.flush();
      },
    });
    connection.registerScalarFunction(scalar);
  }
}
