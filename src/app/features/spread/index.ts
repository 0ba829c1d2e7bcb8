export { SpreadView, type SpreadViewProps } from './components/spread-view';
