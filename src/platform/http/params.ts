import { z } from 'zod';

/** The `{id}` of a resource's path. */
export const idParams = z.object({ id: z.string().uuid() });
