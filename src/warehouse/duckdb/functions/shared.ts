/** Pieces several of DuckDB's function files use. */

import type { CallParts } from '../../../sql/emitters.ts';

/** BigQuery's error with `message` where a rendering checks for one; NULL under SAFE. */
export const fail = (call: CallParts, message: string) => (call.safe ? 'NULL' : `error('${message.replaceAll("'", "''")}')`);

/** A DuckDB string literal (quotes doubled). */
export const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A string literal; control characters (NUL ends a literal for DuckDB's parser) as chr(n). */
export function literal(text: string): string {
  if (!/[\x00-\x1f]/.test(text)) return quoted(text);
  const parts = text.split(/([\x00-\x1f])/).filter((part) => part !== '');
  return `(${parts.map((part) => (/^[\x00-\x1f]$/.test(part) ? `chr(${part.charCodeAt(0)})` : quoted(part))).join(' || ')})`;
}
