// The system's Chromium for the HTML report's browser test, the bench and the screenshot script:
// one place for its path and the flags of a quiet headless run (nothing of the browser's own
// goes to the network), each launch with a fresh profile.
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Debian's `chromium` package (CI installs it in .ci/run), or RUBRIC_EVAL_CHROMIUM. */
export const CHROMIUM = process.env.RUBRIC_EVAL_CHROMIUM || '/usr/bin/chromium';
export const HAS_BROWSER = existsSync(CHROMIUM);

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium context with a fresh profile of its own. */
export async function openChromium(options = {}) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(path.join(os.tmpdir(), 're-chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
    ...options,
  });
}
