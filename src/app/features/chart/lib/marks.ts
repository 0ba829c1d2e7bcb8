/**
 * Performance entries the benchmark reads (bench/app.ts): an indicator picked in the menu (its
 * change handler), and one measure from it to the chart's next frame after its lines got their data.
 */
export const INDICATOR_ADD_MARK = 'indicator:add';
export const INDICATOR_DRAWN_MEASURE = 'indicator:drawn';
