export { DrawingTools, type DrawingToolsProps } from './components/drawing-tools';
export type { DrawingHost } from './lib/projection';
