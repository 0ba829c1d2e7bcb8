export { CandleTrades, type CandleTradesProps } from './components/candle-trades';
