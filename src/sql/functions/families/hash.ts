/** BigQuery's hash functions. */

import { scalar, type Catalog } from '../entry.ts';

const digest = () => scalar('hash', ['(STRING) -> BYTES', '(BYTES) -> BYTES']);

export const HASH_FUNCTIONS = {
  farm_fingerprint: scalar('hash', ['(STRING) -> INT64', '(BYTES) -> INT64']),
  md5: digest(),
  sha1: digest(),
  sha256: digest(),
  sha512: digest(),
} satisfies Catalog;
