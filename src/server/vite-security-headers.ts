import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin, PreviewServer, ViteDevServer } from 'vite';
import { COMMON_SECURITY_HEADERS, pagePolicy } from '../node/security-headers';

/**
 * The security headers under `vite` (npm run dev) and `vite preview` (npm run preview), where Vite, not
 * the platform, serves the app's page and files (the platform's own paths carry them already:
 * platform.ts). The page's policy is made as `npm run serve` makes it, from the page as it is sent:
 * under `vite`, index.html through the dev server's own transform (which adds the React Refresh
 * preamble, an inline script: its hash is in the policy, its text never kept by hand); under `vite
 * preview`, the built index.html.
 */
export function securityHeadersPlugin(): Plugin {
  const listen = (server: ViteDevServer | PreviewServer, page: (url: string) => Promise<string>, dev: boolean) => {
    server.middlewares.use((req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
      for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) res.setHeader(name, value);
      // A page load (what the SPA fallback answers with index.html): its policy, before Vite writes it.
      if (!(req.headers.accept ?? '').includes('text/html')) return next();
      page(req.url ?? '/')
        .then((html) => res.setHeader('Content-Security-Policy', pagePolicy(html, { devStyles: dev })))
        .then(() => next(), next);
    });
  };
  return {
    name: 'security-headers',
    configureServer(server) {
      const index = resolve(server.config.root, 'index.html');
      listen(server, async (url) => server.transformIndexHtml(url, await readFile(index, 'utf8')), true);
    },
    configurePreviewServer(server) {
      const index = resolve(server.config.root, server.config.build.outDir, 'index.html');
      listen(server, () => readFile(index, 'utf8'), false);
    },
  };
}
