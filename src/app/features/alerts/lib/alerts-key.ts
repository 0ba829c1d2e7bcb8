/**
 * Where alerts are kept in the browser (localStorage), in a module of its own: the page reads it on
 * load (are there alerts to arm again?) without loading the alerts' code.
 */
export const ALERTS_KEY = 'cardano-dex-charts:alerts';
