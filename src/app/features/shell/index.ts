export { ChartToggles } from './components/chart-toggles';
export { ConnectionStatus } from './components/connection-status';
export { CurrencySwitch } from './components/currency-switch';
export { DisplayToggles } from './components/display-toggles';
export { GroupPicker } from './components/group-picker';
export { ResolutionButtons } from './components/resolution-buttons';
export { SimulatedBadge } from './components/simulated-badge';
