/** Performance entries the benchmark reads (bench/app.ts): the first rows on screen, and one measure per sort (click -> rows rendered). */
export const OVERVIEW_ROWS_MARK = 'overview:rows';
export const OVERVIEW_SORT_MARK = 'overview:sort';
export const OVERVIEW_SORT_MEASURE = 'overview:sorted';
