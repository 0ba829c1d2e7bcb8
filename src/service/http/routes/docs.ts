import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Hono } from 'hono';
import swaggerUi from 'swagger-ui-dist';
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
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>`;

// An external file, so a strict Content-Security-Policy (no inline scripts) still allows the page.
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'BaseLayout', persistAuthorization: true });`;

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
  app.get('/docs', (c) => c.html(PAGE));
  app.get('/docs/assets/init.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(INIT);
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
