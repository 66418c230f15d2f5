/**
 * The functions of BigQuery's string page that convert between BYTES and their text encodings
 * (base64, base32, hex) and between BYTES and STRING.
 */

import { scalar, type Catalog } from '../entry.ts';

export const ENCODING_FUNCTIONS = {
  from_base32: scalar('string', ['(STRING) -> BYTES']),
  from_base64: scalar('string', ['(STRING) -> BYTES']),
  from_hex: scalar('string', ['(STRING) -> BYTES']),
  safe_convert_bytes_to_string: scalar('string', ['(BYTES) -> STRING']),
  to_base32: scalar('string', ['(BYTES) -> STRING']),
  to_base64: scalar('string', ['(BYTES) -> STRING']),
  to_hex: scalar('string', ['(BYTES) -> STRING']),
} satisfies Catalog;
