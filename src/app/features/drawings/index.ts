export { DrawingTools } from './components/drawing-tools';
