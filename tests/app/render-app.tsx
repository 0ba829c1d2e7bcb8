import { QueryClient } from '@tanstack/react-query';
import { render, waitFor, type RenderResult } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { StateStorage } from '../../src/app/stores/preferences-store';
import { App } from '../../src/app/app';
import type { FetchLike } from '../../src/datafeed';
import type { PrerenderedChart } from '../../src/app/features/chart';
import { AppProviders } from '../../src/app/providers/app-providers';
import { createAppServices, type AppServices } from '../../src/app/providers/app-services';
import { TestEventSource } from '../support/event-source';
import { createTestPlatform, type TestPlatform, type TestPlatformOptions } from '../support/platform';

/** A fetch fault to inject at the network boundary (the server stays real). */
export type FetchFault = (url: string) => Response | undefined;

export interface RenderedApp extends RenderResult {
  readonly services: AppServices;
  /** Every URL the app fetched, in order. */
  readonly fetched: string[];
  /** EventSources the app opened. */
  readonly sources: TestEventSource[];
  readonly warnings: string[];
  /** Set a fault: matching requests get its Response instead of reaching the server. */
  fault: FetchFault | undefined;
  close(): void;
}

/** localStorage stand-in shared across renders of one test (reload = render again with the same storage). */
export function memoryStorage(): StateStorage & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => void values.set(key, value),
    removeItem: (key) => void values.delete(key),
  };
}

/**
 * The real app on the in-process platform (service + gateway): its fetch and EventSource go to the
 * platform through the providers, exactly where the browser's would go. `url` is the page's URL.
 */
export function renderApp(
  tp: TestPlatform,
  options: {
    url?: string;
    storage?: StateStorage;
    fault?: FetchFault;
    fetchThrough?: (fetch: FetchLike) => FetchLike;
    prerendered?: PrerenderedChart | undefined;
  } = {},
): RenderedApp {
  window.history.replaceState(null, '', options.url ?? '/');
  const fetched: string[] = [];
  const sources: TestEventSource[] = [];
  const warnings: string[] = [];
  const state: { fault: FetchFault | undefined } = { fault: options.fault };
  const fetchImpl = async (input: string, init?: RequestInit) => {
    fetched.push(input);
    const injected = state.fault?.(input);
    if (injected) return injected;
    return tp.fetch(input, init);
  };
  // The live stream crosses the same network boundary: a fault applies to it too.
  const streamFetch = async (input: string, init?: RequestInit) => state.fault?.(input) ?? tp.fetch(input, init);
  class PlatformEventSource extends TestEventSource {
    constructor(url: string) {
      super(url, streamFetch);
      sources.push(this);
    }
  }
  const services = createAppServices({
    fetch: options.fetchThrough ? options.fetchThrough(fetchImpl) : fetchImpl,
    EventSource: PlatformEventSource,
    queryClient: new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } }),
    storage: options.storage ?? memoryStorage(),
    onWarning: (message) => warnings.push(message),
    online: true,
  });
  const result = render(
    <AppProviders services={services}>
      <App prerendered={options.prerendered} />
    </AppProviders>,
  );
  let closed = false;
  const app: RenderedApp = {
    ...result,
    services,
    fetched,
    sources,
    warnings,
    get fault() {
      return state.fault;
    },
    set fault(value) {
      state.fault = value;
    },
    close: () => {
      if (closed) return;
      closed = true;
      result.unmount();
      services.dispose();
      services.queryClient.clear();
    },
  };
  return app;
}

export interface AppTestBed {
  /** The file's in-process platform (service + gateway). */
  readonly tp: TestPlatform;
  /** Renders the app at `url` (closing the one rendered before, if open). */
  open(
    url?: string,
    options?: {
      storage?: StateStorage;
      fault?: FetchFault;
      fetchThrough?: (fetch: FetchLike) => FetchLike;
      prerendered?: PrerenderedChart | undefined;
    },
  ): RenderedApp;
}

/**
 * The per-file setup of the app's tests: one in-process platform for the file, and one rendered app
 * at a time, closed after each test.
 */
export function appTestBed(options: TestPlatformOptions | (() => Promise<TestPlatformOptions>) = {}): AppTestBed {
  let platform: TestPlatform | undefined;
  let current: RenderedApp | undefined;
  beforeAll(async () => {
    platform = await createTestPlatform(typeof options === 'function' ? await options() : options);
  });
  afterAll(async () => platform?.close());
  afterEach(async () => {
    current?.close();
    current = undefined;
  });
  const bed: AppTestBed = {
    get tp() {
      if (!platform) throw new Error('the platform exists inside tests only');
      return platform;
    },
    open: (url = '/', options = {}) => {
      current?.close();
      current = renderApp(bed.tp, { url, ...options });
      return current;
    },
  };
  return bed;
}

/** The chart container (data-status, data-bars, data-last-time, data-last-close, data-symbol). */
export function chartElement(container: HTMLElement): HTMLElement {
  const chart = container.querySelector<HTMLElement>('[data-testid="price-chart"]');
  if (!chart) throw new Error('no chart on the page');
  return chart;
}

/** The page's query parameters. */
/** Waits until the chart has drawn its bars (of `symbol`, when given); returns the chart element. */
export async function chartReady(container: HTMLElement, symbol?: string): Promise<HTMLElement> {
  const chart = chartElement(container);
  await waitFor(
    () => {
      expect(chart.dataset.status).toBe('ready');
      if (symbol !== undefined) expect(chart.dataset.symbol).toBe(symbol);
    },
    { timeout: 10_000 },
  );
  return chart;
}

export function urlParams(): URLSearchParams {
  return new URLSearchParams(window.location.search);
}
