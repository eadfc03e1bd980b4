import { type BrowserContext, type LaunchOptions } from 'playwright-core';
export const CHROMIUM: string;
export const HAS_BROWSER: boolean;
export function openChromium(
  options?: Partial<LaunchOptions> & Record<string, unknown>,
): Promise<BrowserContext>;
