/** Where the same-origin gateway's routes live (`/gw/v1/<path>`); no zod here, for the page's first paint. */
export const GATEWAY_PREFIX = '/gw/v1';
