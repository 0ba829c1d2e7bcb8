/** Performance entries the benchmark reads: a mark when "Add alert" is pressed, a measure to the next frame after the alert is listed. */
export const ALERT_ADD_MARK = 'alert:add';
export const ALERT_ADDED_MEASURE = 'alert:added';
