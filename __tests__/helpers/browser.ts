import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext } from 'playwright-core';

/** The system's Chromium (Debian's `chromium` package; CI installs it in .ci/run). */
export const CHROMIUM = process.env.RUBRIC_EVAL_CHROMIUM || '/usr/bin/chromium';
export const HAS_BROWSER = existsSync(CHROMIUM);

/** Flags for a quiet headless run: nothing of the browser's own goes to the network. */
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

/** A headless Chromium with a fresh profile of its own. */
export async function openBrowser(): Promise<BrowserContext> {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(path.join(os.tmpdir(), 're-chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    timeout: 60_000,
  });
}
