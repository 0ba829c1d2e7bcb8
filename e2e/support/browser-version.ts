import { chromium, type FullConfig } from '@playwright/test';

/**
 * Playwright's global setup: prints the version of the browser the flows run on (the one the projects
 * launch, `launchOptions.executablePath`), so that a run's output says which Chromium it was green or
 * red on (README, "Set up").
 */
export default async function browserVersion(config: FullConfig): Promise<void> {
  const launch = config.projects[0]?.use.launchOptions ?? {};
  const browser = await chromium.launch(launch);
  try {
    console.log(
      `Playwright ${config.version} driving Chromium ${browser.version()} (${launch.executablePath ?? "Playwright's own"})`,
    );
  } finally {
    await browser.close();
  }
}
