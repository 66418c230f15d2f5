/** ClickHouse renderings of BigQuery's net functions. */

import { arg, unsupported, type CallParts, type Renderings } from '../../../sql/emitters.ts';
import type { NET_FUNCTIONS } from '../../../sql/functions/families/net.ts';
import { URL_HOST_PATTERN } from '../../../sql/functions/net-host.ts';
import { guarded, quoted } from './shared.ts';


/** The bytes of an unsigned integer, most significant first (network byte order). */
const bigEndian = (value: string, bytes: number) => `reverse(substring(reinterpretAsString(toUInt64(${value})) || repeat(char(0), 8), 1, ${bytes}))`;

/** A mask of `size` bytes whose first `prefix` bits are set, as an array of byte values. */
const maskBytes = (size: string, prefix: string) => `arrayMap(i -> bitAnd(255, bitShiftLeft(255, 8 - least(8, greatest(0, toInt64(${prefix}) - i * 8)))), range(toUInt64(${size})))`;

function ipFromString(call: CallParts, text: string, safe: boolean): string {
  const v4 = bigEndian(`IPv4StringToNumOrDefault(${text})`, 4);
  const v6 = `CAST(IPv6StringToNumOrDefault(${text}) AS String)`;
  const value = `if(isIPv4String(${text}), ${v4}, ${v6})`;
  return guarded({ ...call, safe }, `NOT (isIPv4String(${text}) OR isIPv6String(${text}))`, 'NET.IP_FROM_STRING: the text is not an IPv4 or IPv6 address', value);
}

/** 4 or 16 bytes, else BigQuery's error. */
const addressChecked = (call: CallParts, bytes: string, value: string, name: string) =>
  guarded(call, `length(${bytes}) NOT IN (4, 16)`, `${name}: an address has 4 or 16 bytes`, value);

export const NET: Renderings<typeof NET_FUNCTIONS> = {
  'net.host': (call) => `nullIf(extract(trimBoth(${arg(call, 0)}), ${quoted(URL_HOST_PATTERN)}), '')`,
  'net.ip_from_string': (call) => ipFromString(call, arg(call, 0), call.safe),
  'net.ip_net_mask': (call) => {
    const [size, prefix] = [arg(call, 0), arg(call, 1)];
    const invalid = `${size} NOT IN (4, 16) OR ${prefix} < 0 OR ${prefix} > ${size} * 8`;
    return guarded(call, invalid, 'NET.IP_NET_MASK: the size is 4 or 16 bytes and the prefix at most 8 bits a byte', `arrayStringConcat(arrayMap(b -> char(b), ${maskBytes(`if(${invalid}, 0, ${size})`, prefix)}))`);
  },
  'net.ip_to_string': (call) => {
    const bytes = arg(call, 0);
    const text = `if(length(${bytes}) = 4, IPv4NumToString(reinterpretAsUInt32(reverse(${bytes}))), IPv6NumToString(toFixedString(${bytes}, 16)))`;
    return addressChecked(call, bytes, text, 'NET.IP_TO_STRING');
  },
  'net.ip_trunc': (call) => {
    const [bytes, prefix] = [arg(call, 0), arg(call, 1)];
    const truncated = `arrayStringConcat(arrayMap((b, m) -> char(bitAnd(b, m)), arrayMap(i -> reinterpretAsUInt8(substring(${bytes}, i + 1, 1)), range(length(${bytes}))), ${maskBytes(`length(${bytes})`, prefix)}))`;
    const value = guarded(call, `${prefix} < 0 OR ${prefix} > length(${bytes}) * 8`, 'NET.IP_TRUNC: the prefix length is outside the address', truncated);
    return addressChecked(call, bytes, value, 'NET.IP_TRUNC');
  },
  'net.ipv4_from_int64': (call) => {
    const value = arg(call, 0);
    return guarded(call, `${value} < -2147483648 OR ${value} > 4294967295`, 'NET.IPV4_FROM_INT64: the value is outside [-0x80000000, 0xFFFFFFFF]', bigEndian(`bitAnd(toInt64(${value}), 4294967295)`, 4));
  },
  'net.ipv4_to_int64': (call) => {
    const bytes = arg(call, 0);
    return guarded(call, `length(${bytes}) <> 4`, 'NET.IPV4_TO_INT64: an IPv4 address has 4 bytes', `toInt64(reinterpretAsUInt32(reverse(${bytes})))`);
  },
  'net.public_suffix': unsupported('it needs the Public Suffix List, which ClickHouse does not have'),
  'net.reg_domain': unsupported('it needs the Public Suffix List, which ClickHouse does not have'),
  'net.safe_ip_from_string': (call) => ipFromString(call, arg(call, 0), true),
};
