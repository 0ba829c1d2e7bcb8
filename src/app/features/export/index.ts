export { ExportMenu, type ExportSource } from './components/export-menu';
