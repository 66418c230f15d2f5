/**
 * Skip a test file when something it needs from outside the repository is missing (PostgreSQL,
 * Chromium, chdb, ../shared), but only outside CI: with CI set, it fails loudly instead of passing
 * by not running. One line says what is skipped and why.
 */
export function skipUnlessAvailable(reason: string | undefined | false): string | false {
  if (!reason) return false;
  if (process.env.CI) throw new Error(`${reason} (CI is set, so this is a failure, not a skip)`);
  console.warn(`skipping: ${reason}`);
  return reason;
}
