/** Where the same-origin gateway's routes live (`/gw/v1/<path>`); no zod here, for the page's boot script. */
export const GATEWAY_PREFIX = '/gw/v1';

/**
 * The id of the page's inline copy of `${GATEWAY_PREFIX}/info` (a JSON script element the server puts
 * in the page's HTML, src/server/platform.ts; the boot script reads it, src/app/boot/first-requests.ts).
 */
export const BOOT_INFO_ELEMENT_ID = 'boot-info';

/**
 * The id of the page's inline answer to its first chart's first request (src/shared/first-chart.ts):
 * a JSON script element whose `data-url` is the request's URL and whose text is the answer's body,
 * put in the page by the server beside /info's copy; the boot script hands it to the chart's first
 * request of that URL instead of asking (src/app/boot/first-requests.ts).
 */
export const BOOT_BARS_ELEMENT_ID = 'boot-bars';
