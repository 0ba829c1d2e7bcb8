import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * eslint's import-x/no-cycle (eslint.config.js) skips type-only imports; this check counts every import
 * and re-export, types too, so that no two modules of src/ lean on each other in any way.
 */
const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file an import names: relative, or under the app's `@/` alias (src/); undefined for a package. */
function resolveImport(from: string, specifier: string, root: string): string | undefined {
  const base = specifier.startsWith('@/')
    ? join(root, specifier.slice(2))
    : specifier.startsWith('.')
      ? resolve(dirname(from), specifier)
      : undefined;
  if (base === undefined) return undefined;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Every set of two or more files that import each other, directly or around a circle (Tarjan's strongly connected components). */
function importCycles(root: string): string[][] {
  const files = sourceFiles(root);
  const edges = new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      return [
        file,
        importedFiles.map((f) => resolveImport(file, f.fileName, root)).filter((f): f is string => f !== undefined),
      ];
    }),
  );
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(relative(root, member));
    } while (member !== file);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}

describe('import cycles', () => {
  it('finds none in src/, type-only imports included', () => {
    expect(importCycles(SRC)).toEqual([]);
  });

  it('finds a circle made of type-only imports and re-exports', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    try {
      writeFileSync(join(dir, 'a.ts'), "import type { B } from './b';\nexport interface A { b: B }\n");
      writeFileSync(join(dir, 'b.ts'), "export type { C as B } from './c';\n");
      writeFileSync(join(dir, 'c.ts'), "import type { A } from '@/a';\nexport interface C { a: A }\n");
      writeFileSync(join(dir, 'd.ts'), "import type { A } from './a';\nexport type D = A;\n");
      expect(importCycles(dir)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
