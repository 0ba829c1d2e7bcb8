import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import swaggerUi from 'swagger-ui-dist';
import { DOCS_POLICY } from '../../../node/security-headers';
import { openApiDocument } from '../openapi';

/**
 * `/openapi.json` (the generated OpenAPI document) and `/docs` (Swagger UI), public like a FastAPI
 * service's. Swagger UI's files come from the installed `swagger-ui-dist` package, never a CDN: the
 * server may have no internet.
 */

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Token &amp; Price Data Service — API docs</title>
<link rel="icon" href="/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="stylesheet" href="/docs/assets/docs.css">
</head>
<body>
<p class="key-note" id="key-note" role="note">A key you type in <b>Authorize</b> stays in this tab only: this page never stores it in the browser (no local storage, session storage or cookie), and it is gone when you reload or close the tab.</p>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;

// An external file: the page's policy runs no inline script (src/node/security-headers.ts DOCS_POLICY).
// persistAuthorization off: Swagger UI keeps a key typed in Authorize in memory only, where with it on
// it wrote the key to localStorage ("authorized"), for any script of the origin to read. A key an
// earlier version stored there is removed. No validator: it would send the document to another site.
const INIT = `try { localStorage.removeItem('authorized'); } catch (e) {}
window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout', persistAuthorization: false, validatorUrl: null });
`;

/** The style of the note above Swagger UI (the page keeps no style or script inline). */
const DOCS_CSS = `.key-note { margin: 0; padding: 10px 20px; font: 14px/1.4 sans-serif; background: #fff8e1; border-bottom: 1px solid #e6d9a8; color: #3b3b3b; }
`;

export function docsRoutes(): Hono {
  const app = new Hono();
  let document: string | undefined;
  const dir = swaggerUi.getAbsoluteFSPath();
  const cache = new Map<string, Buffer>();

  app.get('/openapi.json', (c) => {
    document ??= JSON.stringify(openApiDocument());
    c.header('Content-Type', 'application/json');
    c.header('Cache-Control', 'public, max-age=300');
    return c.body(document);
  });
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', DOCS_POLICY);
    c.header('Cache-Control', 'no-cache');
    return c.html(PAGE);
  });
  app.get('/docs/assets/init.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'no-cache');
    return c.body(INIT);
  });
  app.get('/docs/assets/docs.css', (c) => {
    c.header('Content-Type', 'text/css; charset=utf-8');
    c.header('Cache-Control', 'no-cache');
    return c.body(DOCS_CSS);
  });
  app.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (type === undefined) return c.json({ s: 'error', errmsg: `Unknown asset: ${file.slice(0, 100)}` }, 404);
    let bytes = cache.get(file);
    if (!bytes) cache.set(file, (bytes = readFileSync(join(dir, file))));
    c.header('Content-Type', type);
    c.header('Cache-Control', 'public, max-age=86400');
    return c.body(new Uint8Array(bytes));
  });
  return app;
}
