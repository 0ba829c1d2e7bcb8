import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamLineUndescribed, undescribed } from '../support/openapi';
import { createTestService, type TestService } from '../support/service';

/** /openapi.json is a valid OpenAPI 3.1 document of every route; /docs serves Swagger UI from local files. */
let service: TestService;
beforeAll(async () => {
  service = await createTestService({ pools: 60, days: 0.5 });
});
afterAll(async () => service.close());

describe('/openapi.json', () => {
  it('is public and validates as OpenAPI (swagger-parser), with every route, both error families and the Bearer scheme', async () => {
    const response = await service.request('/openapi.json', { key: null });
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>>;
      components: { securitySchemes: object };
    };
    expect(document.openapi).toBe('3.1.0');
    await SwaggerParser.validate(structuredClone(document) as never);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/groups',
        '/api/v1/symbol_info',
        '/api/v1/history',
        '/api/v1/tokens/current',
        '/api/v1/tokens/logo/{token}',
        '/api/v1/tokens/stream',
        '/api/x/liquidity',
        '/udf/history',
      ]),
    );
    expect(document.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(document.paths['/api/v1/history']?.get?.responses['429']).toBeDefined();
    expect(document.paths['/api/v1/tokens/current']?.get?.responses['422']).toBeDefined();
    expect(document.paths['/api/x/deepest']?.get?.tags).toEqual(['Extensions']);
    expect(JSON.stringify(document.paths['/api/v1/tokens/stream'])).toContain('errmsg');
  });

  it('has examples, and each one is an answer the document describes (checked like a real answer)', async () => {
    const document = (await (await service.request('/openapi.json', { key: null })).json()) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>
      >;
    };
    let checked = 0;
    for (const [template, operations] of Object.entries(document.paths)) {
      const path = template.replace(/\{[^}]+\}/g, 'ab');
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, answer] of Object.entries(operation.responses)) {
          for (const [type, media] of Object.entries(answer.content ?? {})) {
            if (media.example === undefined || type !== 'application/json') continue;
            const response = new Response(JSON.stringify(media.example), {
              status: Number(status),
              headers: { 'Content-Type': type },
            });
            expect(
              await undescribed(method.toUpperCase(), path, response),
              `${method} ${template} ${status}`,
            ).toBeUndefined();
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('fails an answer it does not describe (the checker the contract tests run on every answer)', async () => {
    const wrongShape = new Response(JSON.stringify({ s: 'ok', t: 'not an array' }), {
      headers: { 'Content-Type': 'application/json' },
    });
    expect(await undescribed('GET', '/api/v1/history?symbol=x', wrongShape)).toMatch(
      /does not match the documented schema/,
    );
    const wrongStatus = new Response('{}', { status: 418, headers: { 'Content-Type': 'application/json' } });
    expect(await undescribed('GET', '/api/v1/groups', wrongStatus)).toMatch(/status 418 is not documented/);
    const wrongType = new Response('x', { headers: { 'Content-Type': 'text/html' } });
    expect(await undescribed('GET', '/api/v1/groups', wrongType)).toMatch(/content type text\/html is not documented/);
    // A success on a path the document does not list.
    const unlisted = new Response('{"s":"ok"}', { headers: { 'Content-Type': 'application/json' } });
    expect(await undescribed('GET', '/api/x/brand-new', unlisted)).toMatch(
      /status 200 on a path or method the document does not describe/,
    );
    // A wrong method's answer that is not an error in a family's shape.
    const textNotAllowed = new Response('Method Not Allowed', {
      status: 405,
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(await undescribed('POST', '/api/v1/groups', textNotAllowed)).toMatch(/not a JSON error/);
    const jsonNotAllowed = new Response('{"s":"error","errmsg":"Method POST is not allowed"}', {
      status: 405,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(await undescribed('POST', '/api/v1/groups', jsonNotAllowed)).toBeUndefined();
    // A stream refusal whose line is not an error; a live stream's lines that are not its kinds (checked where read).
    const badRefusal = new Response('{"hello":"world"}\n', {
      status: 429,
      headers: { 'Content-Type': 'text/event-stream' },
    });
    expect(await undescribed('POST', '/api/v1/tokens/stream', badRefusal)).toMatch(/a stream line does not match/);
    expect(streamLineUndescribed('{"hello":"world"}')).toMatch(/does not match the documented kinds/);
    expect(streamLineUndescribed('not json')).toMatch(/not JSON/);
    expect(streamLineUndescribed('{"s":"ok"}')).toBeUndefined();
    // Bytes that are not a PNG, sent as one.
    const notPng = new Response('GIF89a', { headers: { 'Content-Type': 'image/png' } });
    expect(await undescribed('GET', `/api/v1/tokens/logo/${'ab'.repeat(28)}`, notPng)).toMatch(
      /without a PNG signature/,
    );
  });
});

describe('/docs', () => {
  it('serves Swagger UI pointing at /openapi.json, every asset from the installed package (no CDN)', async () => {
    const page = await service.request('/docs', { key: null });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(assets).toEqual(
      expect.arrayContaining([
        '/docs/assets/swagger-ui.css',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/init.js',
      ]),
    );
    for (const asset of assets) {
      const response = await service.request(asset, { key: null });
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(10);
    }
    expect(await (await service.request('/docs/assets/init.js', { key: null })).text()).toContain(
      "url: '/openapi.json'",
    );
    expect((await service.request('/docs/assets/evil.js', { key: null })).status).toBe(404);
  });

  it('never keeps a key in the browser, says so, and runs no inline script', async () => {
    const page = await service.request('/docs', { key: null });
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self';/);
    const html = await page.text();
    expect(html).toMatch(
      /<p class="key-note"[^>]*>A key you type in <b>Authorize<\/b> stays in this tab only: this page never stores it in the browser/,
    );
    expect(html).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/);
    const init = await (await service.request('/docs/assets/init.js', { key: null })).text();
    // Swagger UI's option that wrote the key to localStorage, off; a key an earlier version stored, removed.
    expect(init).toContain('persistAuthorization: false');
    expect(init).not.toContain('persistAuthorization: true');
    expect(init).toContain("localStorage.removeItem('authorized')");
    expect(init).toContain('validatorUrl: null');
  });
});
