import { z } from 'zod';

/** What a subscription plan allows (decisions "Plans"). */
export interface Plan {
  readonly requestsPerMinute: number;
  readonly poolsPerStream: number;
  /** Concurrent stream connections per key (the spec's limit, 1, unless a plan says otherwise). */
  readonly streamsPerKey?: number;
}

export type Plans = Readonly<Record<string, Plan>>;

/** Documented defaults; override with TOKEN_API_PLANS (JSON, merged over these). */
export const DEFAULT_PLANS: Plans = {
  free: { requestsPerMinute: 60, poolsPerStream: 10 },
  pro: { requestsPerMinute: 600, poolsPerStream: 100 },
  enterprise: { requestsPerMinute: 6000, poolsPerStream: 1000 },
};

const planSchema = z.strictObject({
  requestsPerMinute: z.number().int().positive(),
  poolsPerStream: z.number().int().positive(),
  streamsPerKey: z.number().int().positive().optional(),
});

const plansSchema = z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'plan names are lowercase words'), planSchema);

/** Parses TOKEN_API_PLANS (a JSON object of plan name -> limits) over the defaults. */
export function parsePlans(json: string | undefined): Plans {
  if (json === undefined || json.trim() === '') return DEFAULT_PLANS;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new Error('TOKEN_API_PLANS must be JSON, e.g. {"free":{"requestsPerMinute":60,"poolsPerStream":10}}');
  }
  const parsed = plansSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `TOKEN_API_PLANS is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return { ...DEFAULT_PLANS, ...parsed.data };
}
