/** Pieces several of DuckDB's function files use. */

import type { CallParts } from '../../../sql/emitters.ts';

/** BigQuery's error with `message` where a rendering checks for one; NULL under SAFE. */
export const fail = (call: CallParts, message: string) => (call.safe ? 'NULL' : `error('${message.replaceAll("'", "''")}')`);

/** A DuckDB string literal (quotes doubled). */
export const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
