import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../src/service/http/openapi';

/**
 * Checks real answers against the generated OpenAPI document: the status must be documented for the
 * operation, the content type among its media types, and the JSON body valid against its schema
 * (JSON Schema 2020-12, as OpenAPI 3.1 uses). Used by `createTestService().request`, so every answer
 * the contract tests get from the real app is checked.
 */

interface MediaType {
  schema?: unknown;
}
interface Operation {
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

const document = openApiDocument() as Document;
const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
ajv.addSchema(document as object, 'openapi');

const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(
    `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}/?$`,
  ),
}));

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The API prefixes the document covers: an answer there on no documented path or method must still be an error in a family's shape. */
const COVERED = /^\/(api\/v1|api\/x|udf)(\/|$)/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The body as the client decodes it. */
async function decodedBody(response: Response): Promise<Buffer> {
  const raw = Buffer.from(await response.clone().arrayBuffer());
  const encoding = (response.headers.get('Content-Encoding') ?? '').trim().toLowerCase();
  return encoding === 'gzip'
    ? gunzipSync(raw)
    : encoding === 'deflate'
      ? inflateSync(raw)
      : encoding === 'br'
        ? brotliDecompressSync(raw)
        : raw;
}

/** An error answer in one of the two families' shapes: `{"s":"error","errmsg":…}` or FastAPI's `{"detail":[…]}`. */
function isFamilyError(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as { s?: unknown; errmsg?: unknown; detail?: unknown };
  return (b.s === 'error' && typeof b.errmsg === 'string') || (Array.isArray(b.detail) && b.detail.length > 0);
}

const STREAM_REF = `openapi#/${pointer('paths', '/api/v1/tokens/stream', 'post', 'responses', '200', 'content', 'text/event-stream', 'schema')}`;

/**
 * Undefined when a line of a live stream is one the document describes (a trade event, a ping or an
 * error); else why not. A live stream never ends, so its lines are checked where tests read them
 * (support/stream.ts), not by `undescribed`, which must not read a body its test leaves unread.
 */
export function streamLineUndescribed(line: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return `a stream line that is not JSON (${line.slice(0, 100)})`;
  }
  const validate = ajv.getSchema(STREAM_REF) ?? ajv.compile({ $ref: STREAM_REF });
  return validate(parsed)
    ? undefined
    : `a stream line does not match the documented kinds: ${ajv.errorsText(validate.errors)} (${line.slice(0, 200)})`;
}

/**
 * Undefined when the answer is described by the document; else why not. Under the API prefixes, an
 * answer on a path or method the document has no operation for must be a 4xx error in a family's
 * shape (an unknown path's 404, a wrong method's 405, a raw path's 400; a CORS preflight's 204).
 * Documented operations: the status, the media type, and the body (JSON by its schema; a refusal's
 * stream line by its schema, a live stream's lines where tests read them; a PNG by its signature).
 * HEAD is judged by the GET operation of its path.
 */
export async function undescribed(method: string, url: string, response: Response): Promise<string | undefined> {
  // A path as sent (a raw-socket test's dot segments and backslashes are judged as they are).
  // The query and the fragment are not the path; one trailing slash is accepted (docs/decisions.md).
  const path = url.startsWith('/') ? (url.split(/[?#]/)[0] ?? url) : new URL(url).pathname;
  const bare = path.length > 1 && path.endsWith('/') && !path.endsWith('//') ? path.slice(0, -1) : path;
  const match = templates.find((t) => t.pattern.test(path)) ?? templates.find((t) => t.pattern.test(bare));
  const verb = method.toLowerCase();
  const operation = match ? document.paths[match.template]?.[verb === 'head' ? 'get' : verb] : undefined;
  if (!match || !operation) {
    if (!COVERED.test(path)) return undefined;
    if (verb === 'options' && response.status === 204) return undefined;
    if (verb === 'head')
      return response.status >= 400 && response.status < 500
        ? undefined
        : `${method} ${path}: ${response.status} on no documented operation`;
    if (response.status < 400 || response.status >= 500)
      return `${method} ${path}: status ${response.status} on a path or method the document does not describe`;
    const text = (await decodedBody(response)).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${method} ${path} ${response.status}: not a JSON error (${text.slice(0, 100)})`;
    }
    return isFamilyError(body)
      ? undefined
      : `${method} ${path} ${response.status}: not an error in a family's shape (${text.slice(0, 200)})`;
  }
  const status = String(response.status);
  const described = operation.responses[status] ?? operation.responses.default;
  if (!described)
    return `${method} ${path}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`;
  if (!described.content || response.status === 304 || verb === 'head') return undefined;
  const type = (response.headers.get('Content-Type') ?? '').split(';')[0]?.trim() ?? '';
  const media = described.content[type];
  if (!media)
    return `${method} ${path} ${status}: content type ${type || '(none)'} is not documented (documented: ${Object.keys(described.content).join(', ')})`;
  const ref = `openapi#/${pointer('paths', match.template, verb, 'responses', operation.responses[status] ? status : 'default', 'content', type, 'schema')}`;
  const check = (body: unknown, what: string): string | undefined => {
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    if (validate(body)) return undefined;
    return `${method} ${path} ${status}: ${what} does not match the documented schema: ${ajv.errorsText(validate.errors)} (${JSON.stringify(body).slice(0, 300)})`;
  };
  if (type === 'image/png') {
    const bytes = await decodedBody(response);
    return bytes.subarray(0, 8).equals(PNG_SIGNATURE)
      ? undefined
      : `${method} ${path} ${status}: image/png without a PNG signature`;
  }
  if (type === 'text/event-stream') {
    // A refusal is one error line on a body that ends; a live stream (200) is judged line by line as read.
    if (response.status === 200 || media.schema === undefined) return undefined;
    const line = (await decodedBody(response)).toString('utf8').split('\n')[0] ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return `${method} ${path} ${status}: a stream line that is not JSON (${line.slice(0, 100)})`;
    }
    return check(parsed, 'a stream line');
  }
  if (type !== 'application/json' || media.schema === undefined) return undefined;
  return check(JSON.parse((await decodedBody(response)).toString('utf8')), 'the body');
}

/** Throws when `undescribed` finds the answer not described by the document (for tests outside createTestService). */
export async function expectDescribed(method: string, url: string, response: Response): Promise<void> {
  const problem = await undescribed(method, url, response);
  if (problem !== undefined) throw new Error(`Not described by /openapi.json: ${problem}`);
}
