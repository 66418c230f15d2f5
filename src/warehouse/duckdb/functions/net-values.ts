/**
 * The values of BigQuery's NET functions that DuckDB computes in JavaScript (udfs.ts): public
 * suffixes from the Public Suffix List's ICANN section (tldts), and IP addresses in network byte
 * order. An invalid argument throws, which is BigQuery's error.
 */

import { isIPv4, isIPv6 } from 'node:net';
import { parse } from 'tldts';

/**
 * The public suffix of a host (`Co.UK` of `www.Example.Co.UK`), in the host's own spelling:
 * looked up lower-cased, ICANN suffixes only; NULL for an IP address, adjacent dots inside the
 * host, or no known suffix.
 */
export function publicSuffix(host: string): string | null {
  const labels = suffixLabels(host);
  return labels === undefined ? null : host.replace(/^\.+|\.+$/g, '').split('.').slice(-labels).join('.');
}

/** The public suffix and the label before it (`Example.Co.UK`); NULL when the host is only a suffix. */
export function registeredDomain(host: string): string | null {
  const labels = suffixLabels(host);
  const parts = host.replace(/^\.+|\.+$/g, '').split('.');
  return labels === undefined || parts.length <= labels ? null : parts.slice(-(labels + 1)).join('.');
}

function suffixLabels(host: string): number | undefined {
  const trimmed = host.replace(/^\.+|\.+$/g, '');
  if (trimmed === '' || trimmed.includes('..')) return undefined;
  const parsed = parse(trimmed.toLowerCase(), { allowPrivateDomains: false });
  if (parsed.isIp || parsed.isIcann !== true || !parsed.publicSuffix) return undefined;
  return parsed.publicSuffix.split('.').length;
}

/** NET.IP_FROM_STRING: 4 bytes for IPv4, 16 for IPv6; NULL instead of the error when `safe`. */
export function ipFromString(text: string, safe = false): Uint8Array | null {
  if (isIPv4(text)) return Uint8Array.from(text.split('.').map(Number));
  if (isIPv6(text)) return ipv6Bytes(text);
  if (safe) return null;
  throw new Error(`NET.IP_FROM_STRING: ${JSON.stringify(text)} is not an IPv4 or IPv6 address`);
}

function ipv6Bytes(text: string): Uint8Array {
  // An embedded IPv4 tail (::ffff:192.0.2.128) is its two 16-bit words.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  const words16 = dotted
    ? `${text.slice(0, dotted.index)}${((Number(dotted[1]) << 8) | Number(dotted[2])).toString(16)}:${((Number(dotted[3]) << 8) | Number(dotted[4])).toString(16)}`
    : text;
  const [head = '', rest] = words16.split('::');
  const parseWords = (part: string) => (part === '' ? [] : part.split(':').map((word) => parseInt(word, 16)));
  const left = parseWords(head);
  const right = rest === undefined ? [] : parseWords(rest);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return Uint8Array.from(words.flatMap((word) => [word >> 8, word & 0xff]));
}

/** NET.IP_TO_STRING: dotted quad for 4 bytes; RFC 5952 text for 16 (IPv4-mapped as ::ffff:a.b.c.d). */
export function ipToString(bytes: Uint8Array): string {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length !== 16) throw new Error(`NET.IP_TO_STRING: an address has 4 or 16 bytes, not ${bytes.length}`);
  const words = Array.from({ length: 8 }, (_, index) => (bytes[2 * index]! << 8) | bytes[2 * index + 1]!);
  if (words.slice(0, 5).every((word) => word === 0) && words[5] === 0xffff) return `::ffff:${[...bytes.slice(12)].join('.')}`;
  // The longest run of two or more zero words (the first of equals) becomes "::".
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && words[start + length] === 0) length++;
    if (length > best.length && length >= 2) best = { start, length };
  }
  const hex = words.map((word) => word.toString(16));
  if (best.start < 0) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** NET.IP_NET_MASK: `size` bytes (4 or 16) whose first `prefix` bits are set. */
export function ipNetMask(size: number, prefix: number): Uint8Array {
  if (size !== 4 && size !== 16) throw new Error(`NET.IP_NET_MASK: the mask has 4 or 16 bytes, not ${size}`);
  if (prefix < 0 || prefix > size * 8) throw new Error(`NET.IP_NET_MASK: the prefix length ${prefix} is outside 0..${size * 8}`);
  return Uint8Array.from({ length: size }, (_, index) => 0xff & (0xff << (8 - Math.min(8, Math.max(0, prefix - index * 8)))));
}

/** NET.IP_TRUNC: the address with the bits past `prefix` cleared. */
export function ipTrunc(bytes: Uint8Array, prefix: number): Uint8Array {
  if (bytes.length !== 4 && bytes.length !== 16) throw new Error(`NET.IP_TRUNC: an address has 4 or 16 bytes, not ${bytes.length}`);
  const mask = ipNetMask(bytes.length, prefix);
  return bytes.map((byte, index) => byte & mask[index]!);
}

/** NET.IPV4_FROM_INT64: the low 32 bits, from a value in [-0x80000000, 0xFFFFFFFF]. */
export function ipv4FromInt64(value: bigint): Uint8Array {
  if (value < -0x80000000n || value > 0xffffffffn) throw new Error(`NET.IPV4_FROM_INT64: ${value} is outside [-0x80000000, 0xFFFFFFFF]`);
  const word = Number(BigInt.asUintN(32, value));
  return Uint8Array.from([word >>> 24, (word >>> 16) & 0xff, (word >>> 8) & 0xff, word & 0xff]);
}

/** NET.IPV4_TO_INT64: 4 bytes as an integer in [0, 0xFFFFFFFF]. */
export function ipv4ToInt64(bytes: Uint8Array): bigint {
  if (bytes.length !== 4) throw new Error(`NET.IPV4_TO_INT64: an IPv4 address has 4 bytes, not ${bytes.length}`);
  return BigInt(((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!);
}
