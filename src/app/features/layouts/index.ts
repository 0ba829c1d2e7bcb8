export { ChartSync } from './lib/chart-sync';
