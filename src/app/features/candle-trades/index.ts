export { CandleTrades } from './components/candle-trades';
