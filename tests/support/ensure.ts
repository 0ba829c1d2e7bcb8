/** Returns `value`, or throws when it is undefined or null: the tests' stand-in for the `!` operator. */
export function ensureDefined<T>(value: T | undefined | null, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`expected ${what} to be defined`);
  return value;
}
