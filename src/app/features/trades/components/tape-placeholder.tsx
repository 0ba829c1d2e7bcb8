import { TapeFrame } from './tape-frame';

/**
 * The tape's box while the pair resolves and the tape's code loads (the chart page renders it from its
 * first render, the page's skeleton included): the tape then comes in its place, and the page's end
 * does not move down under the reader. Its own module, so that the page does not load the tape with it.
 */
export function TapePlaceholder() {
  return (
    <TapeFrame labels={{ price: '–', value: '–', base: '–', quote: '–' }} listLabel="" count={0} placeholder>
      <p className="tape__empty">Loading trades…</p>
    </TapeFrame>
  );
}
