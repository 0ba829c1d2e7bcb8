export { CompareChart, type CompareChartProps } from './components/compare-chart';
