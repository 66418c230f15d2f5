import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { skipUnlessAvailable } from './requirements.ts';

/**
 * The project's shared reference material (BigQuery's reference cases, real queries) lives
 * beside the repository checkout in ../shared, not in it: a plain clone does not have it.
 */
const SHARED = new URL('../../../shared/', import.meta.url);

/** The path of `relative` inside ../shared. */
export function sharedPath(relative: string): string {
  return fileURLToPath(new URL(relative, SHARED));
}

/**
 * The reason to skip a test file that reads `relative` from ../shared, or false when it is there.
 * Outside CI its absence skips the file with one line; with CI set it fails.
 */
export function skipUnlessShared(relative: string, what: string): string | false {
  if (existsSync(sharedPath(relative))) return false;
  return skipUnlessAvailable(`${what}: ../shared/${relative} is not beside this checkout (${sharedPath(relative)})`);
}
