export { AlertsHost, type AlertPair, type AlertsHostProps } from './components/alerts-host';
