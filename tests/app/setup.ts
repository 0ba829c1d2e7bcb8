import '@testing-library/jest-dom/vitest';
import 'vitest-canvas-mock';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

afterEach(() => cleanup());

// findBy… and waitFor wait on a condition; Testing Library's default bound (1 s) is a fixed delay that a busy
// machine (two cores, other work beside) overruns while the app is still right. A wait ends as soon as its condition
// holds, so a wider bound costs only a failing test's time.
configure({ asyncUtilTimeout: 10_000 });

// lightweight-charts asks for matchMedia (device pixel ratio changes); jsdom has none.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
