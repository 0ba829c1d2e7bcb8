export { CompareChart, type CompareHandle } from './components/compare-chart';
