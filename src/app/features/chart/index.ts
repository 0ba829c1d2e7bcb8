export { PriceChart, type ChartHandle } from './components/price-chart';
export { IndicatorMenu } from './components/indicator-menu';
export type { ClickedCandle } from './lib/chart';
export type { ChartAppearance } from './lib/chart-style';
export { PrerenderedChart } from './lib/prerendered-chart';
