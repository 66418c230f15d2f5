import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { skipUnlessAvailable } from '../support/requirements.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * The reason to skip the browser tests, or false to run them. Outside CI a missing Chromium
 * skips them; with CI set it is a failure, as for the project's other external dependencies.
 */
export function chromiumMissing(): string | false {
  if (existsSync(CHROMIUM)) return false;
  return skipUnlessAvailable(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
}

export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'console');

/**
 * Debian's Chromium, headless. The network flags keep it from calling Google's services, which a
 * closed CI network refuses (and which have nothing to do with the page under test). Playwright
 * gives every launch a fresh, empty profile directory of its own.
 */
export async function launchChromium(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
