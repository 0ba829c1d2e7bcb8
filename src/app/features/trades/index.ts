export { TradesTape } from './components/trades-tape';
