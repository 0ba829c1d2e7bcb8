export { CompareChart, type CompareChartProps, type CompareHandle, type CompareLine } from './components/compare-chart';
