export { SpreadView } from './components/spread-view';
