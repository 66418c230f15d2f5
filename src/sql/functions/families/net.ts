/** BigQuery's net functions (NET.HOST, NET.IP_FROM_STRING …), by their dotted lower-case names. */

import { scalar, type Catalog } from '../entry.ts';

const net = (signatures: string[]) => scalar('net', signatures);

export const NET_FUNCTIONS = {
  'net.host': net(['(STRING) -> STRING']),
  'net.ip_from_string': net(['(STRING) -> BYTES']),
  'net.ip_net_mask': net(['(INT64, INT64) -> BYTES']),
  'net.ip_to_string': net(['(BYTES) -> STRING']),
  'net.ip_trunc': net(['(BYTES, INT64) -> BYTES']),
  'net.ipv4_from_int64': net(['(INT64) -> BYTES']),
  'net.ipv4_to_int64': net(['(BYTES) -> INT64']),
  'net.public_suffix': net(['(STRING) -> STRING']),
  'net.reg_domain': net(['(STRING) -> STRING']),
  'net.safe_ip_from_string': net(['(STRING) -> BYTES']),
} satisfies Catalog;
