/**
 * The chart's first answer to the pointer: the bar under the crosshair shown in its legend (the
 * benchmark's "interactive": bench/app.ts moves the pointer over the chart from the navigation on).
 */
export const CROSSHAIR_MARK = 'chart:crosshair';

/**
 * Performance entries the benchmark reads (bench/app.ts): an indicator picked in the menu (its
 * change handler), and one measure from it to the chart's next frame after its lines got their data.
 */
export const INDICATOR_ADD_MARK = 'indicator:add';
export const INDICATOR_DRAWN_MEASURE = 'indicator:drawn';
