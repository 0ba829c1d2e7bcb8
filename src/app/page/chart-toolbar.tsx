import { ToggleButton } from '@/app/components/toggle-button';
import { IndicatorMenu } from '@/app/features/chart';
import { ExportMenu, type ExportSource } from '@/app/features/export';
// The picker's own module: the layouts' code is a chunk of its own (page/chart-grid.tsx).
import { LayoutPicker } from '@/app/features/layouts/components/layout-picker';
import { withKind } from '@/app/lib/layout-edit';
import { ChartToggles, CurrencySwitch, ResolutionButtons } from '@/app/features/shell';
import { invertLabel, pairOfName } from '@/app/lib/invert-label';
import { usePreferences, useSelection } from '@/app/providers/app-providers';
import type { ResolvedSymbol } from '@/app/api/resolve-symbol';
import type { Prices } from './use-prices';

/**
 * The chart's toolbar: resolution, the pair's orientation, the currency, the chart's options, the
 * indicators, the drawing tools and the export. `symbolName`: what the chart shows (named before the pair is resolved).
 */
export function ChartToolbar(props: {
  readonly current: ResolvedSymbol | undefined;
  readonly symbolName: string | undefined;
  readonly prices: Prices;
  readonly indicators: string;
  readonly onIndicators: (next: string) => void;
  readonly exportSource: ExportSource | undefined;
  /** The drawing tools are shown (features/drawings), and the Draw button's press. */
  readonly drawing: boolean;
  readonly onDrawing: () => void;
  /** The spread view (one pair on every DEX) open, and its toggle. */
  readonly spread?: { readonly open: boolean; readonly onToggle: () => void };
}) {
  const { current, symbolName, prices, indicators, onIndicators, exportSource, drawing, onDrawing, spread } = props;
  const resolution = useSelection((s) => s.resolution);
  const select = useSelection((s) => s.select);
  const compare = usePreferences((s) => s.compare);
  const layout = useSelection((s) => s.layout);
  const group = useSelection((s) => s.group);
  const symbol = useSelection((s) => s.symbol);
  return (
    <div className="toolbar">
      <ResolutionButtons value={resolution} onChange={(next) => select({ resolution: next })} />
      {/* There before the pair is known (named from the URL's symbol meanwhile, disabled): the toolbar keeps its rows. */}
      <ToggleButton
        pressed={prices.shownInverted}
        onToggle={() => select({ inverted: !prices.inverted })}
        label="Invert the pair"
        testId="invert-toggle"
        className="invert-toggle"
        disabled={prices.usd || !current}
        title={
          prices.usd
            ? 'In USD the price is the token’s: switch to ADA to invert the pair'
            : invertLabel(current?.row ?? pairOfName(symbolName), prices.shownInverted)
        }
      >
        {/* Cut at its end with an ellipsis when long (a look-alike's ticker: MIN-7a7a7a/ADA); whole in the title. */}
        <span className="invert-toggle__label">
          {invertLabel(current?.row ?? pairOfName(symbolName), prices.shownInverted)}
        </span>
      </ToggleButton>
      {compare ? null : (
        <CurrencySwitch
          value={prices.shownCurrency}
          onChange={prices.changeCurrency}
          unavailable={prices.usdUnavailable}
        />
      )}
      <ChartToggles />
      {compare ? null : <IndicatorMenu value={indicators} onChange={onIndicators} />}
      {compare ? null : (
        <ToggleButton
          pressed={drawing}
          onToggle={onDrawing}
          label="Drawing tools"
          testId="draw-toggle"
          disabled={!current}
        >
          Draw
        </ToggleButton>
      )}
      {spread ? (
        <ToggleButton
          pressed={spread.open}
          onToggle={spread.onToggle}
          label="The pair on every DEX, and its spread"
          testId="toggle-spread"
          disabled={!current}
        >
          Spread
        </ToggleButton>
      ) : null}
      <ExportMenu source={exportSource} resolution={resolution} />
      {compare ? null : (
        <LayoutPicker
          kind={layout.kind}
          sync={layout.sync}
          onKind={(kind) =>
            select({
              layout: withKind(layout, kind, {
                group: current?.info.exchange ?? group,
                symbol: current?.info.name ?? symbol,
              }),
            })
          }
          onSync={(sync) => select({ layout: { ...layout, sync } })}
        />
      )}
    </div>
  );
}
