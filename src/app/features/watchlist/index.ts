export { Watchlist } from './components/watchlist';
