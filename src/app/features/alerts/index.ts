export { AlertsHost } from './components/alerts-host';
