import { test as base, expect, type Response } from '@playwright/test';

/** What the page's Content-Security-Policy refused, as the browser reported it. */
interface Violation {
  readonly directive: string;
  readonly blocked: string;
  readonly sample: string;
  readonly where: string;
}

/**
 * `test` with automatic checks over every page of the test's browser context:
 * - `pageErrors`: no uncaught exception in the page (`pageerror`). Failed requests (flows that stop
 *   the server) are expected and only logged by the browser.
 * - `contentSecurity`: every flow runs with the server's Content-Security-Policy on (issue 29): every
 *   document the browser loads came with a policy that forbids framing, and nothing the page did was
 *   refused by it (a `securitypolicyviolation` event, or Chromium's console report of one). A refused
 *   inline script or style, a source the policy does not list, fails the flow that did it.
 */
export const test = base.extend<{ pageErrors: string[]; contentSecurity: Violation[] }>({
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`${error.name}: ${error.message}`));
      await use(errors);
      expect(errors, 'uncaught exceptions in the page').toEqual([]);
    },
    { auto: true },
  ],
  contentSecurity: [
    async ({ context }, use) => {
      const violations: Violation[] = [];
      const unprotected: string[] = [];
      // Reported from inside each page (the binding and the script are the browser's, not the page's:
      // the page's policy does not apply to them).
      await context.exposeBinding('__reportCspViolation', ({ page }, violation: Omit<Violation, 'where'>) => {
        violations.push({ ...violation, where: page.url() });
      });
      await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          const report = (window as unknown as { __reportCspViolation?: (v: Omit<Violation, 'where'>) => void })
            .__reportCspViolation;
          report?.({ directive: event.effectiveDirective, blocked: event.blockedURI, sample: event.sample });
        });
      });
      const onConsole = (message: { text(): string; type(): string; page(): { url(): string } | null }) => {
        if (/Content[- ]Security[- ]Policy/i.test(message.text()))
          violations.push({
            directive: 'console',
            blocked: '',
            sample: message.text().slice(0, 300),
            where: message.page()?.url() ?? '',
          });
      };
      const onResponse = (response: Response) => {
        const request = response.request();
        if (!request.isNavigationRequest() || request.resourceType() !== 'document') return;
        // A redirect's own answer is not the document.
        if (response.status() >= 300 && response.status() < 400) return;
        void response
          .allHeaders()
          .then((headers) => {
            const policy = headers['content-security-policy'] ?? '';
            if (!/frame-ancestors 'none'/.test(policy))
              unprotected.push(`${response.status()} ${response.url()}: ${policy || 'no Content-Security-Policy'}`);
          })
          .catch(() => undefined);
      };
      context.on('console', onConsole);
      context.on('response', onResponse);
      await use(violations);
      context.off('console', onConsole);
      context.off('response', onResponse);
      expect(unprotected, 'documents served without the Content-Security-Policy').toEqual([]);
      expect(violations, 'Content-Security-Policy violations').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
