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
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, '[^/]+')}/?$`),
}));

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Undefined when the answer is described by the document (or the request is outside it); else why not. */
export async function undescribed(method: string, url: string, response: Response): Promise<string | undefined> {
  const path = new URL(url, 'http://x').pathname;
  const match = templates.find((t) => t.pattern.test(path));
  const verb = method.toLowerCase();
  // Unknown paths and methods the document has no operation for (405s, CORS preflights) are outside it.
  const operation = match ? document.paths[match.template]?.[verb] : undefined;
  if (!match || !operation) return undefined;
  const status = String(response.status);
  const described = operation.responses[status] ?? operation.responses.default;
  if (!described) return `${method} ${path}: status ${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`;
  if (!described.content || response.status === 304 || verb === 'head') return undefined;
  const type = (response.headers.get('Content-Type') ?? '').split(';')[0]?.trim() ?? '';
  const media = described.content[type];
  if (!media) return `${method} ${path} ${status}: content type ${type || '(none)'} is not documented (documented: ${Object.keys(described.content).join(', ')})`;
  if (type !== 'application/json' || media.schema === undefined) return undefined;
  const raw = Buffer.from(await response.clone().arrayBuffer());
  const encoding = (response.headers.get('Content-Encoding') ?? '').trim().toLowerCase();
  // Compressed answers are judged by what the client decodes from them.
  const decoded = encoding === 'gzip' ? gunzipSync(raw) : encoding === 'deflate' ? inflateSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : raw;
  const body: unknown = JSON.parse(decoded.toString('utf8'));
  const ref = `openapi#/${pointer('paths', match.template, verb, 'responses', operation.responses[status] ? status : 'default', 'content', type, 'schema')}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (validate(body)) return undefined;
  return `${method} ${path} ${status}: the body does not match the documented schema: ${ajv.errorsText(validate.errors)} (${JSON.stringify(body).slice(0, 300)})`;
}
