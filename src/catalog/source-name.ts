/**
 * What a source may be called. Names are written in SQL between backticks (`my.source`), in
 * URLs (`?source_name=`) and in key scopes, and the API takes a name wherever it takes a token.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_SOURCE_NAME = 256;

/** Why `name` (trimmed, as the API trims it) cannot name a source, or undefined when it can. */
export function sourceNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'must not be empty';
  if (name.length > MAX_SOURCE_NAME) return `must be at most ${MAX_SOURCE_NAME} characters`;
  // Format characters are invisible and some reorder what is shown (U+202E turns `evil\u202Etxt.exe` into
  // `evilexe.txt`): a name must read as it is.
  const hidden = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.exec(name);
  if (hidden) return `must not contain control characters or invisible format characters (tabs, newlines, U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`;
  if (name.includes('`')) return 'must not contain a backtick: queries name sources between backticks';
  if (UUID.test(name)) return 'must not look like a source UUID: the API takes a UUID as a token';
  return undefined;
}
