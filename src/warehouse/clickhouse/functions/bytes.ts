/** ClickHouse renderings of BigQuery's hash, bytes-encoding, bit, utility and debugging functions. */

import { arg, argType, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { BIT_FUNCTIONS } from '../../../sql/functions/families/bit.ts';
import type { ENCODING_FUNCTIONS } from '../../../sql/functions/families/encoding.ts';
import type { HASH_FUNCTIONS } from '../../../sql/functions/families/hash.ts';
import type { DEBUGGING_FUNCTIONS, UTILITY_FUNCTIONS } from '../../../sql/functions/families/utility.ts';
import { guarded, raiseMessage } from './shared.ts';

/** ClickHouse's digests are FixedString; BYTES are String here. */
const digest = (name: string) => (call: CallParts) => `CAST(${name}(${arg(call, 0)}) AS String)`;

export const HASH: Renderings<typeof HASH_FUNCTIONS> = {
  farm_fingerprint: (call) => `reinterpretAsInt64(farmFingerprint64(${arg(call, 0)}))`,
  md5: digest('MD5'),
  sha1: digest('SHA1'),
  sha256: digest('SHA256'),
  sha512: digest('SHA512'),
};

export const ENCODING: Renderings<typeof ENCODING_FUNCTIONS> = {
  from_base32: (call) => `base32Decode(${arg(call, 0)})`,
  from_base64: (call) => `base64Decode(${arg(call, 0)})`,
  // unhex reads an odd number of digits as led by a 0, as BigQuery does, but decodes other characters silently.
  from_hex: (call) => guarded(call, `NOT match(${arg(call, 0)}, '^[0-9A-Fa-f]*$')`, 'FROM_HEX: the input is not hexadecimal', `unhex(${arg(call, 0)})`),
  safe_convert_bytes_to_string: (call) => `toValidUTF8(${arg(call, 0)})`,
  to_base32: (call) => `base32Encode(${arg(call, 0)})`,
  to_base64: (call) => `base64Encode(${arg(call, 0)})`,
  to_hex: (call) => `lower(hex(${arg(call, 0)}))`,
};

export const BIT: Renderings<typeof BIT_FUNCTIONS> = {
  // An INT64 literal is a narrower type in ClickHouse: its bits are counted as 64.
  bit_count: (call) => `toInt64(bitCount(${argType(call, 0) === 'BYTES' ? arg(call, 0) : `toInt64(${arg(call, 0)})`}))`,
};

export const UTILITY: Renderings<typeof UTILITY_FUNCTIONS> = {
  generate_uuid: () => 'toString(generateUUIDv4())',
};

export const DEBUGGING: Renderings<typeof DEBUGGING_FUNCTIONS> = {
  error: (call) => raiseMessage(arg(call, 0), call.raw[0]?.kind === 'string'),
};
