import { z } from 'zod';

export const groupsResponseSchema = z.strictObject({
  s: z.literal('ok'),
  d: z.strictObject({
    groups: z.array(z.strictObject({ id: z.string().min(1) })),
  }),
});
export type GroupsResponse = z.infer<typeof groupsResponseSchema>;
