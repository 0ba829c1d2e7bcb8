import * as z from 'zod/mini';

export const groupsResponseSchema = z.strictObject({
  s: z.literal('ok'),
  d: z.strictObject({
    groups: z.array(z.strictObject({ id: z.string().check(z.minLength(1)) })),
  }),
});
export type GroupsResponse = z.infer<typeof groupsResponseSchema>;
