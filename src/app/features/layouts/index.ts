export { ChartSync, type SyncedChart } from './lib/chart-sync';
