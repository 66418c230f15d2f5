/**
 * JSON text of result rows with every INT64 exact. BigQuery's INT64 reaches 2^63; a JavaScript
 * number keeps only 2^53, so the converters hand larger integers over as bigint, and they are
 * written here as their digits (JSON numbers are not bounded; clients that need them exact can
 * read them so).
 */

import { randomUUID } from 'node:crypto';
import { RawJson } from './json-results.ts';

/** A number when it is exact as one, else the bigint. */
export function exactInteger(value: bigint | number | string): number | bigint {
  const big = typeof value === 'bigint' ? value : BigInt(value);
  return big >= MIN_SAFE && big <= MAX_SAFE ? Number(big) : big;
}

const [MIN_SAFE, MAX_SAFE] = [BigInt(Number.MIN_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER)];

/**
 * Each bigint becomes a string marked with a token no value can hold (fresh per call), then its
 * digits; each JSON value (RawJson) its JSON text.
 */
export function stringifyExact(rows: unknown): string {
  let mark: string | undefined;
  const texts: string[] = [];
  const text = JSON.stringify(rows, function (this: Record<string, unknown>, key, value: unknown) {
    const original = this[key];
    if (original instanceof RawJson) {
      mark ??= randomUUID();
      return `${mark}j${texts.push(original.text) - 1}`;
    }
    if (typeof value !== 'bigint') return value;
    mark ??= randomUUID();
    return `${mark}${value}`;
  });
  if (mark === undefined) return text;
  return text.replace(new RegExp(`"${mark}(?:j(\\d+)|(-?\\d+))"`, 'g'), (_, json: string | undefined, digits: string) => (json !== undefined ? texts[Number(json)]! : digits));
}
