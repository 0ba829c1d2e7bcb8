export { Watchlist, type WatchedSymbol, type WatchlistProps } from './components/watchlist';
