import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { csvField, seriesToCsv } from '../../src/app/features/export/lib/csv';
import { importTrades } from '../../src/service/importers/trades';
import { openMarket } from '../../src/service/open-market';
import { historyResponseSchema } from '../../src/shared/api/history';
import { symbolInfoResponseSchema, symbolInfoRows } from '../../src/shared/api/symbol-info';
import { hasInvisible, lookAlikeKey } from '../../src/shared/visible-text';
import { LOOK_ALIKES } from '../../tests/support/look-alikes';
import { SoakServer } from './server';

/**
 * The soak's tickers and CSV parts (issue 29). Tickers: a market of adversarial tokens (the issue's
 * look-alikes of SNEK, then thousands of tickers drawn from look-alike letters, invisible and bidi
 * characters and separators, under policies that share long prefixes) served by a server process:
 * every symbol name must be unique, unlike every other after NFKC with invisibles removed, free of
 * invisible characters, and a request by name must answer for the pool symbol_info lists under it.
 * CSV: generated hostile texts (formula starts, quotes, separators, line breaks, any Unicode) and every
 * symbol name of that market as column headers, numbers of every size and sign in the cells: parsed
 * back, no text cell may start a formula and every number must read back as written.
 */

/** Characters of generated tickers: SNEK's letters, their full-width and Cyrillic twins, invisibles, bidi controls, separators, escape text. */
const ALPHABET = [
  'S',
  'N',
  'E',
  'K',
  's',
  'n',
  'Ｓ',
  'Ｎ',
  'Е',
  'К',
  '\u200B',
  '\u200D',
  '\u2060',
  '\u202E',
  '\u2066',
  '\u2069',
  '\uFEFF',
  '\u00AD',
  '\u{E0041}',
  '.',
  '_',
  ' ',
  '-',
  '=',
  '+',
  '@',
  '\\',
  'u',
  '2',
  '0',
  'B',
];

export interface TickersResult {
  readonly tokens: number;
  readonly pools: number;
  readonly names: number;
  /** Names given to two pools, names that look like another, names with an invisible character. */
  readonly duplicates: number;
  readonly lookAlikes: number;
  readonly invisible: number;
  /** Names whose /history answer differs from the one of the ticker symbol_info lists with them. */
  readonly checkedByName: number;
  readonly wrongPool: number;
  /** Time of the first symbol_info of every group after the start (names computed), ms. */
  readonly symbolInfoMs: number;
  readonly examples: readonly string[];
  /** The symbol names, for the CSV part. */
  readonly symbolNames: readonly string[];
}

const DAY = Math.floor(1_718_000_000 / 86_400) * 86_400;

/** Deterministic draws (a small LCG: the market must be the same on every run of a seed). */
function draws(seed: number): (n: number) => number {
  let state = seed >>> 0 || 1;
  return (n) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % n;
  };
}

/** Writes the adversarial market's import file: the look-alikes, then `count` generated tokens, an ADA pool and one trade each. */
function adversarialFile(file: string, count: number, seed: number): number {
  const pick = draws(seed);
  const lines: object[] = [];
  const tokens: { unit: string; ticker: string }[] = LOOK_ALIKES.map(({ unit, ticker }) => ({ unit, ticker }));
  const units = new Set(tokens.map((t) => t.unit));
  while (tokens.length < LOOK_ALIKES.length + count) {
    // Policies sharing 0 to 56 hex digits with SNEK's or an earlier token's: suffixes must grow past them.
    const model = tokens[pick(tokens.length)]?.unit ?? '';
    const unit = `${model.slice(0, pick(57))}${pick(0xffffff).toString(16)}${tokens.length.toString(16)}`
      .padEnd(64, '0')
      .slice(0, 64);
    if (units.has(unit)) continue;
    units.add(unit);
    const ticker = Array.from({ length: 1 + pick(7) }, () => ALPHABET[pick(ALPHABET.length)] ?? '').join('');
    // The importer refuses a blank ticker: one of white space only gets a letter.
    tokens.push({ unit, ticker: ticker.trim() === '' ? `${ticker}S` : ticker });
  }
  tokens.forEach(({ unit, ticker }, i) => {
    const pool = (0x100000 + i).toString(16);
    lines.push({ kind: 'token', unit, ticker, name: ticker, decimals: 0 });
    lines.push({
      kind: 'pool',
      pool_id: pool,
      group: i % 2 === 0 ? 'MinswapV2' : 'SundaeSwapV3',
      base: '',
      quote: unit,
      fee_bps: 30,
    });
    const price = 0.0001 * (i + 1);
    lines.push({
      id: `adversarial-${i}`,
      block_time: DAY + i,
      pool_id: pool,
      previous_price: price,
      current_price: price * 1.01,
      previous_tvl: 1000,
      current_tvl: 1001,
      volume: 1,
    });
  });
  writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
  return tokens.length;
}

export async function tickers(options: {
  readonly root: string;
  readonly tokens: number;
  readonly byName: number;
  readonly seed: number;
  readonly log: (line: string) => void;
}): Promise<TickersResult> {
  const dataDir = join(options.root, 'tickers');
  mkdirSync(dataDir, { recursive: true });
  const file = join(options.root, 'adversarial.jsonl');
  const tokens = adversarialFile(file, options.tokens, options.seed);
  const handle = await openMarket(dataDir, 'soak:tickers');
  try {
    const report = await importTrades(handle, file);
    if (report.errors.length > 0)
      throw new Error(`the adversarial market did not import: ${JSON.stringify(report.errors.slice(0, 3))}`);
  } finally {
    await handle.close();
  }
  options.log(`tickers: ${tokens} adversarial tokens imported; serving them`);
  const server = new SoakServer({ dataDir, extraArgs: ['--source', 'none'] });
  await server.start();
  const examples: string[] = [];
  try {
    const get = async (path: string) =>
      (await fetch(`${server.origin}${path}`, { headers: server.auth() })).json() as Promise<unknown>;
    const started = performance.now();
    const rows = symbolInfoRows(symbolInfoResponseSchema.parse(await get('/api/v1/symbol_info')));
    const symbolInfoMs = Math.round(performance.now() - started);
    const names = rows.map((row) => row.symbol);
    const duplicates = names.length - new Set(names).size;
    const lookAlikes = names.length - new Set(names.map(lookAlikeKey)).size;
    const invisible = names.filter(hasInvisible).length;
    if (duplicates + lookAlikes + invisible > 0)
      examples.push(
        `names: ${duplicates} duplicates, ${lookAlikes} look-alikes, ${invisible} with invisible characters`,
      );
    // By name and by ticker, a spread of rows (every look-alike of the issue among them).
    const step = Math.max(1, Math.floor(rows.length / options.byName));
    const sample = rows.filter((row, i) => i % step === 0 || LOOK_ALIKES.some((token) => token.unit === row.currency));
    let wrongPool = 0;
    for (const row of sample) {
      const query = (symbol: string) =>
        `/api/v1/history?symbol=${encodeURIComponent(symbol)}&resolution=1d&from=${DAY}&to=${DAY + 86_400}`;
      const [byName, byTicker] = await Promise.all([get(query(row.symbol)), get(query(row.ticker))]);
      if (
        JSON.stringify(historyResponseSchema.parse(byName)) !== JSON.stringify(historyResponseSchema.parse(byTicker))
      ) {
        wrongPool++;
        if (examples.length < 5) examples.push(`${row.symbol} answers another pool than ${row.ticker}`);
      }
    }
    return {
      tokens,
      pools: rows.length,
      names: names.length,
      duplicates,
      lookAlikes,
      invisible,
      checkedByName: sample.length,
      wrongPool,
      symbolInfoMs,
      examples,
      symbolNames: names,
    };
  } finally {
    await server.stop('SIGTERM');
  }
}

export interface CsvResult {
  readonly files: number;
  readonly textCells: number;
  readonly numberCells: number;
  /** Text cells a spreadsheet would run as a formula, numbers that do not read back, files that do not parse. */
  readonly formulas: number;
  readonly badNumbers: number;
  readonly unparsable: number;
  readonly examples: readonly string[];
}

/** RFC 4180 records of a CSV text (CRLF line ends, quoted fields with doubled quotes). */
function parseCsv(text: string): string[][] | undefined {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const char = text[i] ?? '';
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 2;
      } else if (char === '"') {
        quoted = false;
        i++;
      } else {
        cell += char;
        i++;
      }
    } else if (char === '"' && cell === '') {
      quoted = true;
      i++;
    } else if (char === ',') {
      record.push(cell);
      cell = '';
      i++;
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i += 2;
    } else if (char === '"' || char === '\r' || char === '\n') {
      return undefined;
    } else {
      cell += char;
      i++;
    }
  }
  return quoted || cell !== '' || record.length > 0 ? undefined : records;
}

/** What a spreadsheet would take for a formula: a text cell's first character, as Excel, LibreOffice and Sheets read it. */
const FORMULA = /^[=+\-@\t\r]/;

export function csvSoak(options: {
  readonly files: number;
  readonly symbolNames: readonly string[];
  readonly seed: number;
}): CsvResult {
  const hostile = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
    fc
      .tuple(fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\r\n', '"', ',', "'", ' '), fc.string({ maxLength: 20 }))
      .map(([start, rest]) => `${start}${rest}`),
    fc.constantFrom(
      '=HYPERLINK("https://evil.example","SNEK")',
      "=cmd|' /C calc'!A0",
      "@SUM(1+1)*cmd|' /C calc'!A0",
      '+1+1',
      '-1+1',
      '\t=1',
      '\r=1',
      ...options.symbolNames.slice(0, 500),
    ),
  );
  const value = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.double({ min: -1e-6, max: 1e-6, noNaN: true }),
    fc.integer({ min: -1e9, max: 1e9 }),
  );
  const file = fc.array(fc.record({ header: hostile, values: fc.array(value, { minLength: 1, maxLength: 5 }) }), {
    minLength: 1,
    maxLength: 6,
  });
  let textCells = 0;
  let numberCells = 0;
  let formulas = 0;
  let badNumbers = 0;
  let unparsable = 0;
  const examples: string[] = [];
  const samples = fc.sample(file, { numRuns: options.files, seed: options.seed });
  // Every symbol name of the adversarial market as a header too, a file of 10 at a time.
  for (let i = 0; i < options.symbolNames.length; i += 10)
    samples.push(
      options.symbolNames.slice(i, i + 10).map((header) => ({ header: `${header} (%)`, values: [-1.5, 0.00000015] })),
    );
  for (const series of samples) {
    const csv = seriesToCsv(
      series.map((s) => ({
        header: s.header,
        points: s.values.map((v, t) => ({ time: 1_700_000_000 + t * 60, value: v })),
      })),
    );
    const records = parseCsv(csv);
    if (!records) {
      unparsable++;
      if (examples.length < 5) examples.push(`unparsable: ${JSON.stringify(csv.slice(0, 120))}`);
      continue;
    }
    const [header, ...rows] = records;
    for (const [i, cell] of (header ?? []).slice(2).entries()) {
      textCells++;
      const given = series[i]?.header ?? '';
      // Shown as written, an apostrophe first where a formula would start (spreadsheets hide it).
      const expected = FORMULA.test(given) ? `'${given}` : given;
      if (FORMULA.test(cell) || cell !== expected) {
        formulas++;
        if (examples.length < 5) examples.push(`header ${JSON.stringify(given)} written as ${JSON.stringify(cell)}`);
      }
    }
    for (const row of rows) {
      const time = Number(row[1]);
      for (const [i, cell] of row.slice(2).entries()) {
        if (cell === '') continue;
        numberCells++;
        const written = series[i]?.values[(time - 1_700_000_000) / 60];
        const read = Number(cell);
        // Every digit is written (csv.ts): a number reads back as exactly the number written (-0 as 0).
        if (cell.startsWith("'") || written === undefined || read !== written) {
          badNumbers++;
          if (examples.length < 5) examples.push(`number ${written} written as ${JSON.stringify(cell)}`);
        }
      }
    }
  }
  // The field itself, on every hostile start alone.
  for (const start of ['=', '+', '-', '@', '\t', '\r'])
    if (!csvField(`${start}1`).replace(/^"/, '').startsWith("'")) formulas++;
  return { files: samples.length, textCells, numberCells, formulas, badNumbers, unparsable, examples };
}
