/** The market overview: loaded as a chunk of its own (app.tsx imports it with React.lazy). */
export { MarketOverview, type MarketOverviewProps, type OverviewPair } from './components/market-overview';
export type { OverviewPlace } from './lib/rows';
export { prefetchList } from './api/group-stats';
