import type { ReactNode, Ref } from 'react';

/**
 * The tape's box: its title (and why it shows only live trades, when it does), the columns' labels and
 * the scrolling list. The tape and its placeholder are this same box, so the tape takes the
 * placeholder's place without moving anything below it.
 */
export function TapeFrame(props: {
  readonly labels: { readonly price: string; readonly value: string; readonly base: string; readonly quote: string };
  readonly note?: string | undefined;
  readonly listLabel: string;
  readonly count: number;
  readonly scrollRef?: Ref<HTMLDivElement>;
  /** The tape's placeholder (tape-placeholder.tsx): busy, and with test IDs of its own. */
  readonly placeholder?: boolean;
  readonly children: ReactNode;
}) {
  const { labels, note, listLabel, count, scrollRef, placeholder = false, children } = props;
  return (
    <section
      className="tape"
      aria-label="Trades"
      aria-busy={placeholder || undefined}
      data-testid={placeholder ? 'trades-tape-loading' : 'trades-tape'}
    >
      <header className="tape__head">
        <h2 className="tape__title">Trades</h2>
        {note ? (
          <span className="tape__note" data-testid="tape-note">
            {note}
          </span>
        ) : null}
      </header>
      <div className="tape__row tape__row--labels" aria-hidden="true">
        <span>Time</span>
        <span>Side</span>
        <span>Price ({labels.price})</span>
        <span>Value ({labels.value})</span>
        <span>{labels.base}</span>
        <span>{labels.quote}</span>
        <span>DEX</span>
        <span />
      </div>
      {/* Focusable, so the list scrolls from the keyboard too (arrows, Page Up/Down). */}
      <div
        ref={scrollRef}
        className="tape__scroll"
        {...(placeholder
          ? {}
          : { role: 'list', 'aria-label': listLabel, tabIndex: 0, 'data-testid': 'tape-rows', 'data-count': count })}
      >
        {children}
      </div>
    </section>
  );
}
