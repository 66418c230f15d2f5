/** DuckDB renderings of BigQuery's hash, bytes-encoding, bit, utility and debugging functions. */

import { arg, argType, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { BIT_FUNCTIONS } from '../../../sql/functions/families/bit.ts';
import type { ENCODING_FUNCTIONS } from '../../../sql/functions/families/encoding.ts';
import type { HASH_FUNCTIONS } from '../../../sql/functions/families/hash.ts';
import type { DEBUGGING_FUNCTIONS, UTILITY_FUNCTIONS } from '../../../sql/functions/families/utility.ts';

/** The argument as BYTES: a STRING argument is its UTF-8 (as BigQuery hashes text). */
const asBytes = (call: CallParts, index: number) => (argType(call, index) === 'STRING' ? `encode(${arg(call, index)})` : arg(call, index));

/** DuckDB's digests are hex text; BigQuery's are BYTES. */
const digest = (name: string) => (call: CallParts) => `unhex(${name}(${asBytes(call, 0)}))`;

export const HASH: Renderings<typeof HASH_FUNCTIONS> = {
  farm_fingerprint: (call) => `sawmill_farm_fingerprint(${asBytes(call, 0)})`,
  md5: digest('md5'),
  sha1: digest('sha1'),
  sha256: digest('sha256'),
  sha512: (call) => `sawmill_sha512(${asBytes(call, 0)})`,
};

export const ENCODING: Renderings<typeof ENCODING_FUNCTIONS> = {
  from_base32: (call) => `sawmill_from_base32(${arg(call, 0)})`,
  from_base64: (call) => `from_base64(${arg(call, 0)})`,
  // An odd number of digits reads as if led by a 0.
  from_hex: (call) => `unhex(CASE WHEN length(${arg(call, 0)}) % 2 = 1 THEN '0' || ${arg(call, 0)} ELSE ${arg(call, 0)} END)`,
  safe_convert_bytes_to_string: (call) => `sawmill_bytes_to_text(${arg(call, 0)})`,
  to_base32: (call) => `sawmill_to_base32(${arg(call, 0)})`,
  to_base64: (call) => `to_base64(${arg(call, 0)})`,
  to_hex: (call) => `lower(hex(${arg(call, 0)}))`,
};

export const BIT: Renderings<typeof BIT_FUNCTIONS> = {
  // An INT64 literal is an INTEGER in DuckDB: its bits are counted as 64.
  bit_count: (call) => (argType(call, 0) === 'BYTES' ? `sawmill_bit_count(${arg(call, 0)})` : `CAST(bit_count(CAST(${arg(call, 0)} AS BIGINT)) AS BIGINT)`),
};

export const UTILITY: Renderings<typeof UTILITY_FUNCTIONS> = {
  generate_uuid: () => 'CAST(uuid() AS VARCHAR)',
};

export const DEBUGGING: Renderings<typeof DEBUGGING_FUNCTIONS> = {
  error: (call) => `error(${arg(call, 0)})`,
};
