export { PriceChart, type ChartHandle, type PriceChartProps } from './components/price-chart';
export { IndicatorMenu } from './components/indicator-menu';
export { Chart, type ChartLink, type ChartState, type ChartStatus, type ClickedCandle } from './lib/chart';
export type { ChartAppearance } from './lib/chart-style';
export { CHART_PLACE_SELECTOR, PrerenderedChart, type PrerenderedShows } from './lib/prerendered-chart';
export { CROSSHAIR_MARK } from './lib/marks';
