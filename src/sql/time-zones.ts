/**
 * BigQuery's time zone arguments: a name of the tz database (`America/Los_Angeles`, `UTC`) or a
 * fixed offset written `[UTC](+|-)H[H][[:]M[M]]` (`+08`, `-5:30`, `UTC+1234`), which the engines'
 * zone functions do not read: an offset is applied as arithmetic instead. After ZetaSQL's
 * MakeTimeZone (date_time_util.cc).
 */

export type Zone = { kind: 'offset'; minutes: number } | { kind: 'name'; name: string };

/** An offset form, as a regular expression over the whole text (groups: sign, hours, minutes). */
export const OFFSET_ZONE = /^(?:UTC)?([+-])(\d{1,2})(?::?(\d{1,2}))?$/;

/** The zone a literal names; undefined for an offset BigQuery refuses (past ±14:00, minutes past 59). */
export function parseZone(text: string): Zone | undefined {
  const offset = OFFSET_ZONE.exec(text);
  if (!offset) return UTC_NAMES.has(text) ? { kind: 'offset', minutes: 0 } : { kind: 'name', name: text };
  const hours = Number(offset[2]);
  const minutes = Number(offset[3] ?? '0');
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return undefined;
  return { kind: 'offset', minutes: (offset[1] === '-' ? -1 : 1) * (hours * 60 + minutes) };
}

/** Names of UTC itself, read as the offset 0 (no zone data needed). */
const UTC_NAMES: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT', 'Zulu', 'Etc/Zulu', 'Universal', 'Etc/Universal', 'UCT', 'Etc/UCT']);
