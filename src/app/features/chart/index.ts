export { PriceChart, type ChartHandle, type PriceChartProps } from './components/price-chart';
export type { ChartAppearance } from './lib/chart-controller';
export { IndicatorMenu } from './components/indicator-menu';
