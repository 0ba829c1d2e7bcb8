import { Suspense } from 'react';
import { PartBoundary } from '@/app/components/part-boundary';
import { lazyPart } from '@/app/lib/lazy-part';
import { useSelection } from '@/app/providers/app-providers';
import type { AppServices } from '@/app/providers/app-services';

/**
 * The market overview, a chunk of its own: the chart page does not load it (start.tsx loads it before
 * the first render of a page opened on it; pointing at the Markets link loads it too).
 */
const loadOverview = () => import('@/app/features/overview');
const overviewPart = lazyPart(() => loadOverview().then((m) => m.MarketOverview));
const MarketOverview = overviewPart.Part;
export const preloadOverview = overviewPart.preload;

/** The overview's chunk, then its list of `group` in the query cache (features/overview's prefetchList): what the first render of a page opened on the overview waits for. */
export const preloadOverviewList = (services: AppServices, group: string) =>
  preloadOverview()
    .then(loadOverview)
    .then((m) => m.prefetchList(services, group));

/** Key of the overview's place (sort, filter, scroll) in its history entry. */
const OVERVIEW_PLACE = 'overview';

/** The market overview of the selected group; a row opens its pair's chart. `livePools`: the connection's pool budget for its rows. */
export function OverviewPage({ livePools }: { readonly livePools: number }) {
  const group = useSelection((s) => s.group);
  const select = useSelection((s) => s.select);
  const href = useSelection((s) => s.href);
  const placeOf = useSelection((s) => s.place);
  const keepPlace = useSelection((s) => s.keepPlace);
  return (
    <PartBoundary label="The market overview" testId="overview-part-error" resetKey={group}>
      <Suspense
        fallback={
          <p className="overview__loading" role="status">
            Loading the market overview…
          </p>
        }
      >
        <MarketOverview
          key={group}
          group={group}
          onOpen={(pair) => select({ symbol: pair.symbol, group: pair.group, view: 'chart' })}
          hrefOf={(pair) => href({ symbol: pair.symbol, group: pair.group, view: 'chart' })}
          place={placeOf(OVERVIEW_PLACE)}
          onPlace={(place) => keepPlace(OVERVIEW_PLACE, place)}
          livePools={livePools}
        />
      </Suspense>
    </PartBoundary>
  );
}
