export { ExportMenu, type BarsExportSource, type ExportSource, type SeriesExportSource } from './components/export-menu';
