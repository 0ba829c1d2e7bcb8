/** Mark: a press on the chart adds a drawing (`detail: {kind}`). */
export const DRAWING_ADD_MARK = 'drawing:add';
/** Measure: that press (its event's time) -> the chart's next frame, which draws it (`detail: {kind}`). */
export const DRAWING_DRAWN_MEASURE = 'drawing:drawn';
