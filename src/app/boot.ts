import { bootRequests } from './boot/first-requests';

/**
 * The page's first script (main.tsx imports it before anything else), a few kilobytes without React,
 * zod or the chart: it asks the gateway for what the first chart needs while the app's own code is
 * still loading, so the chart finds the answers waiting instead of asking after it has run
 * (boot/first-requests.ts).
 */
bootRequests(location.search);
