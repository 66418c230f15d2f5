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
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not contain control characters (tabs, newlines)';
  if (name.includes('`')) return 'must not contain a backtick: queries name sources between backticks';
  if (UUID.test(name)) return 'must not look like a source UUID: the API takes a UUID as a token';
  return undefined;
}
